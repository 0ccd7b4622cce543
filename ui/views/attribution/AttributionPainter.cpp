#include "ui/views/attribution/AttributionPainter.h"

#include "ui/heatmap/ColorMaps.h"
#include "ui/views/AblatedHeads.h"
#include "ui/views/DivergingHeadGrid.h"
#include "ui/views/MetricChooser.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

const QColor kPaper(Qt::white);
const QColor kInk(0x22, 0x22, 0x22);
const QColor kMuted(0x66, 0x66, 0x66);
const QColor kAxis(0xbb, 0xbb, 0xbb);
constexpr double kMargin = 14;
constexpr double kLine = 20;
constexpr double kRowLabels = 34;     // "L11" left of the heatmap
constexpr double kColumnLabels = 16;  // head numbers above it
constexpr double kBarWidth = 18;      // the colour bar's
constexpr double kBarLabels = 84;     // "attn bias 11" left of the bars
constexpr double kBarValues = 58;     // the value right of the bars

QColor diverging(double value, double scale)
{
    const double t = scale > 0 ? 0.5 + 0.5 * value / scale : 0.5;
    return ColorMaps::colorAt(ColorMaps::Map::Diverging, std::clamp(t, 0.0, 1.0));
}

QString number(double value)
{
    return QString::number(value, 'f', 4);
}

// The bars' rows: the embeddings, each layer's attention output bias and MLP, the final bias.
struct BarRow {
    QString label;
    double value;
};
std::vector<BarRow> barRows(const AttributionResult& r)
{
    std::vector<BarRow> rows;
    rows.push_back({QStringLiteral("embeddings"), r.embed});
    for (int l = 0; l < r.num_layers; ++l) {
        rows.push_back({QStringLiteral("attn bias %1").arg(l), r.attn_bias[size_t(l)]});
        rows.push_back({QStringLiteral("MLP %1").arg(l), r.mlp[size_t(l)]});
    }
    rows.push_back({QStringLiteral("final bias"), r.final_bias});
    return rows;
}

}  // namespace

void AttributionPainter::setResult(std::shared_ptr<const AttributionResult> result, const QString& metric)
{
    m_result = std::move(result);
    m_metric = metric;
    m_message.clear();
}

void AttributionPainter::setMessage(const QString& message)
{
    m_result.reset();
    m_message = message;
}

QString AttributionPainter::metricText(const QString& target, const QString& foil, int position, const QString& at)
{
    return MetricChooser::metricText(target, foil, position, at);
}

QString AttributionPainter::sumLine(const AttributionResult& result)
{
    return QStringLiteral("parts sum to %1; the model's logit%2 is %3")
        .arg(number(result.sum()), result.tokens.foil ? QStringLiteral(" difference") : QString(),
             number(result.logit));
}

double AttributionPainter::headScale(const AttributionResult& result)
{
    double scale = 0;
    for (double v : result.heads)
        scale = std::max(scale, std::abs(v));
    return scale;
}

AttributionPainter::Layout AttributionPainter::layout(const QRectF& target) const
{
    Layout out;
    const QRectF inner = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    out.title = QRectF(inner.left(), inner.top(), inner.width(), kLine);
    out.sum = QRectF(inner.left(), out.title.bottom(), inner.width(), kLine);
    const QRectF body(inner.left(), out.sum.bottom() + 8, inner.width(), inner.bottom() - out.sum.bottom() - 8);
    const double heat_area = body.width() * 0.56;
    const int L = m_result ? m_result->num_layers : 1;
    const int H = m_result ? m_result->num_heads : 1;
    const QRectF cells_area(body.left() + kRowLabels, body.top() + kColumnLabels + kLine,
                            heat_area - kRowLabels - kBarWidth - 56, body.height() - kColumnLabels - kLine);
    out.cell_width = std::max(1.0, cells_area.width() / H);
    out.cell_height = std::max(1.0, std::min(cells_area.height() / L, out.cell_width * 1.2));
    out.heatmap = QRectF(cells_area.topLeft(), QSizeF(out.cell_width * H, out.cell_height * L));
    out.colour_bar = QRectF(out.heatmap.right() + 14, out.heatmap.top(), kBarWidth, out.heatmap.height());
    out.bars = QRectF(body.left() + heat_area + 16, body.top(), body.width() - heat_area - 16, body.height());
    return out;
}

std::optional<std::pair<int, int>> AttributionPainter::headAt(const QRectF& target, const QPointF& point) const
{
    if (!m_result)
        return std::nullopt;
    const Layout l = layout(target);
    if (!l.heatmap.contains(point))
        return std::nullopt;
    const int layer = std::clamp(int((point.y() - l.heatmap.top()) / l.cell_height), 0, m_result->num_layers - 1);
    const int head = std::clamp(int((point.x() - l.heatmap.left()) / l.cell_width), 0, m_result->num_heads - 1);
    return std::pair{layer, head};
}

void AttributionPainter::paint(QPainter& painter, const QRectF& target) const
{
    painter.save();
    painter.fillRect(target, kPaper);
    QFont font = painter.font();
    font.setPixelSize(12);
    painter.setFont(font);
    if (!m_result) {
        painter.setPen(kMuted);
        painter.drawText(target.adjusted(kMargin, kMargin, -kMargin, -kMargin), Qt::AlignCenter | Qt::TextWordWrap,
                         m_message);
        painter.restore();
        return;
    }
    const Layout l = layout(target);
    QFont bold = font;
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(kInk);
    painter.drawText(
        l.title, Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetricsF(bold).elidedText(
            QStringLiteral("Direct logit attribution of %1%2")
                .arg(m_metric, m_ablated.empty()       ? QString()
                               : m_ablated.size() == 1 ? QStringLiteral(" · 1 head ablated")
                                                       : QStringLiteral(" · %1 heads ablated").arg(m_ablated.size())),
            Qt::ElideMiddle, l.title.width()));
    painter.setFont(font);
    painter.drawText(l.sum, Qt::AlignLeft | Qt::AlignVCenter, sumLine(*m_result));
    if (m_updating) {
        painter.setPen(kMuted);
        painter.drawText(l.title, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("updating…"));
    }
    paintHeatmap(painter, l);
    paintColourBar(painter, l.colour_bar);
    paintBars(painter, l.bars);
    painter.restore();
}

void AttributionPainter::paintHeatmap(QPainter& painter, const Layout& l) const
{
    const AttributionResult& r = *m_result;
    const double scale = headScale(r);
    painter.setPen(kInk);
    painter.drawText(QRectF(l.heatmap.left(), l.heatmap.top() - kColumnLabels - kLine, l.heatmap.width(), kLine),
                     Qt::AlignHCenter | Qt::AlignVCenter, QStringLiteral("heads (layer × head)"));
    const QFontMetricsF metrics(painter.font());
    const bool values = l.cell_width >= metrics.horizontalAdvance(QStringLiteral("−0.00")) + 4 && l.cell_height >= 14;
    for (int layer = 0; layer < r.num_layers; ++layer) {
        painter.setPen(kMuted);
        painter.drawText(QRectF(l.heatmap.left() - kRowLabels, l.heatmap.top() + layer * l.cell_height, kRowLabels - 4,
                                l.cell_height),
                         Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(layer));
        for (int head = 0; head < r.num_heads; ++head) {
            const QRectF cell(l.heatmap.left() + head * l.cell_width, l.heatmap.top() + layer * l.cell_height,
                              l.cell_width, l.cell_height);
            const double v = r.head(layer, head);
            const QColor fill = diverging(v, scale);
            painter.fillRect(cell, fill);
            if (values) {
                painter.setPen(fill.lightnessF() > 0.55 ? kInk : Qt::white);
                painter.drawText(cell, Qt::AlignCenter, QString::number(v, 'f', 2));
            }
        }
    }
    for (const auto& [layer, head] : m_ablated)
        if (layer < r.num_layers && head < r.num_heads)
            AblatedHeads::paintMark(
                painter, QRectF(l.heatmap.left() + head * l.cell_width, l.heatmap.top() + layer * l.cell_height,
                                l.cell_width, l.cell_height)
                             .adjusted(3, 3, -3, -3));
    DivergingHeadGrid::paintHeadNumbersAndFrame(painter, l.heatmap, r.num_heads, l.cell_width, kColumnLabels);
}

void AttributionPainter::paintColourBar(QPainter& painter, const QRectF& rect) const
{
    const double scale = headScale(*m_result);
    DivergingHeadGrid::paintColourBar(painter, rect, scale, 56, kLine);
}

void AttributionPainter::paintBars(QPainter& painter, const QRectF& rect) const
{
    const std::vector<BarRow> rows = barRows(*m_result);
    double scale = 0;
    for (const BarRow& row : rows)
        scale = std::max(scale, std::abs(row.value));
    painter.setPen(kInk);
    painter.drawText(QRectF(rect.left(), rect.top() + kColumnLabels, rect.width(), kLine), Qt::AlignHCenter,
                     QStringLiteral("embeddings, biases and MLPs"));
    const QRectF area(rect.left() + kBarLabels, rect.top() + kColumnLabels + kLine,
                      rect.width() - kBarLabels - kBarValues, rect.height() - kColumnLabels - kLine);
    const double row_height = std::min(22.0, area.height() / double(rows.size()));
    const double zero = area.center().x();
    QFont small = painter.font();
    small.setPixelSize(std::clamp(int(row_height * 0.7), 7, 12));
    painter.setFont(small);
    for (size_t i = 0; i < rows.size(); ++i) {
        const double top = area.top() + double(i) * row_height;
        const double length = scale > 0 ? rows[i].value / scale * area.width() / 2 : 0;
        const QRectF bar = QRectF(QPointF(zero + std::min(0.0, length), top + row_height * 0.15),
                                  QSizeF(std::abs(length), row_height * 0.7));
        painter.fillRect(bar, diverging(rows[i].value >= 0 ? scale : -scale, scale));
        painter.setPen(kMuted);
        painter.drawText(QRectF(rect.left(), top, kBarLabels - 6, row_height), Qt::AlignRight | Qt::AlignVCenter,
                         rows[i].label);
        painter.drawText(QRectF(area.right() + 6, top, kBarValues - 6, row_height), Qt::AlignLeft | Qt::AlignVCenter,
                         QString::number(rows[i].value, 'f', 3));
    }
    painter.setPen(kAxis);
    painter.drawLine(QPointF(zero, area.top()), QPointF(zero, area.top() + row_height * double(rows.size())));
}

}  // namespace attn
