#include "ui/views/ablation/AblationPainter.h"

#include "ui/heatmap/ColorMaps.h"
#include "ui/views/AblatedHeads.h"
#include "ui/views/DivergingHeadGrid.h"

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
constexpr double kBarLabels = 64;     // its labels, right of it

QColor diverging(double value, double scale)
{
    const double t = scale > 0 ? 0.5 + 0.5 * value / scale : 0.5;
    return ColorMaps::colorAt(ColorMaps::Map::Diverging, std::clamp(t, 0.0, 1.0));
}

}  // namespace

void AblationPainter::setResult(std::shared_ptr<const AblationScanResult> result, const QString& metric)
{
    m_result = std::move(result);
    m_metric = metric;
    m_message.clear();
}

void AblationPainter::setMessage(const QString& message)
{
    m_result.reset();
    m_message = message;
}

QString AblationPainter::title() const
{
    if (!m_result)
        return {};
    QString text =
        QStringLiteral("Ablation scan (%1) of %2")
            .arg(m_result->mode == HeadAblation::Mean ? QStringLiteral("mean") : QStringLiteral("zero"), m_metric);
    if (!m_ablated.empty())
        text += m_ablated.size() == 1 ? QStringLiteral(" · 1 head ablated in the run")
                                      : QStringLiteral(" · %1 heads ablated in the run").arg(m_ablated.size());
    return text;
}

double AblationPainter::effectScale(const AblationScanResult& result)
{
    double scale = 0;
    for (double v : result.effects)
        scale = std::max(scale, std::abs(v));
    return scale;
}

AblationPainter::Layout AblationPainter::layout(const QRectF& target) const
{
    Layout out;
    const QRectF inner = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    out.title = QRectF(inner.left(), inner.top(), inner.width(), kLine);
    out.plain = QRectF(inner.left(), out.title.bottom(), inner.width(), kLine);
    const QRectF body(inner.left(), out.plain.bottom() + 8, inner.width(), inner.bottom() - out.plain.bottom() - 8);
    const int L = m_result ? m_result->num_layers : 1;
    const int H = m_result ? m_result->num_heads : 1;
    const QRectF cells_area(body.left() + kRowLabels, body.top() + kColumnLabels + kLine,
                            body.width() - kRowLabels - kBarWidth - kBarLabels - 14,
                            body.height() - kColumnLabels - kLine);
    // Square-ish cells: as wide as they may be, no taller than 1.2 times their width.
    out.cell_height = std::max(1.0, cells_area.height() / L);
    out.cell_width = std::max(1.0, std::min(cells_area.width() / H, out.cell_height * 1.6));
    out.cell_height = std::min(out.cell_height, out.cell_width * 1.2);
    out.heatmap = QRectF(cells_area.topLeft(), QSizeF(out.cell_width * H, out.cell_height * L));
    out.colour_bar = QRectF(out.heatmap.right() + 14, out.heatmap.top(), kBarWidth, out.heatmap.height());
    return out;
}

std::optional<std::pair<int, int>> AblationPainter::headAt(const QRectF& target, const QPointF& point) const
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

QRectF AblationPainter::cellRect(const QRectF& target, int layer, int head) const
{
    const Layout l = layout(target);
    return QRectF(l.heatmap.left() + head * l.cell_width, l.heatmap.top() + layer * l.cell_height, l.cell_width,
                  l.cell_height);
}

void AblationPainter::paint(QPainter& painter, const QRectF& target) const
{
    painter.save();
    painter.fillRect(target, kPaper);
    QFont font = painter.font();
    font.setPixelSize(12);
    painter.setFont(font);
    if (!m_result) {
        painter.setPen(kMuted);
        QString text = m_message;
        if (!m_progress.isEmpty())
            text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + m_progress;
        painter.drawText(target.adjusted(kMargin, kMargin, -kMargin, -kMargin), Qt::AlignCenter | Qt::TextWordWrap,
                         text);
        painter.restore();
        return;
    }
    const Layout l = layout(target);
    QFont bold = font;
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(kInk);
    painter.drawText(l.title, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(bold).elidedText(title(), Qt::ElideMiddle, l.title.width()));
    painter.setFont(font);
    QString plain = QStringLiteral(
                        "each head ablated alone: its run's metric minus the plain run's (%1); red: the "
                        "metric rises without the head, blue: it falls")
                        .arg(QString::number(m_result->plain, 'f', 4));
    if (!m_progress.isEmpty())
        plain += QStringLiteral(" · ") + m_progress;
    painter.drawText(l.plain, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(font).elidedText(plain, Qt::ElideRight, l.plain.width()));
    paintHeatmap(painter, l);
    paintColourBar(painter, l.colour_bar);
    painter.restore();
}

void AblationPainter::paintHeatmap(QPainter& painter, const Layout& l) const
{
    const AblationScanResult& r = *m_result;
    const double scale = effectScale(r);
    painter.setPen(kInk);
    painter.drawText(QRectF(l.heatmap.left(), l.heatmap.top() - kColumnLabels - kLine, l.heatmap.width(), kLine),
                     Qt::AlignHCenter | Qt::AlignVCenter, QStringLiteral("heads (layer × head)"));
    const QFontMetricsF metrics(painter.font());
    const bool values = l.cell_width >= metrics.horizontalAdvance(QStringLiteral("−0.00")) + 4 && l.cell_height >= 14;
    const int label_step = std::max(1, int(std::ceil(14.0 / l.cell_height)));
    const auto cellAt = [&l](int layer, int head) {
        return QRectF(l.heatmap.left() + head * l.cell_width, l.heatmap.top() + layer * l.cell_height, l.cell_width,
                      l.cell_height);
    };
    for (int layer = 0; layer < r.num_layers; ++layer) {
        if (layer % label_step == 0) {
            painter.setPen(kMuted);
            painter.drawText(QRectF(l.heatmap.left() - kRowLabels, l.heatmap.top() + layer * l.cell_height,
                                    kRowLabels - 4, l.cell_height),
                             Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(layer));
        }
        for (int head = 0; head < r.num_heads; ++head)
            painter.fillRect(cellAt(layer, head), diverging(r.at(layer, head), scale));
    }
    // The marks under the values, so that an ablated head's value stays readable.
    for (const auto& [layer, head] : m_ablated)
        if (layer < r.num_layers && head < r.num_heads)
            AblatedHeads::paintMark(painter, cellAt(layer, head).adjusted(3, 3, -3, -3));
    if (values)
        for (int layer = 0; layer < r.num_layers; ++layer)
            for (int head = 0; head < r.num_heads; ++head) {
                const QRectF cell = cellAt(layer, head);
                const double v = r.at(layer, head);
                const QRectF box = QFontMetricsF(painter.font()).boundingRect(QString::number(v, 'f', 2));
                const QRectF label(cell.center() - QPointF(box.width() / 2 + 2, box.height() / 2),
                                   QSizeF(box.width() + 4, box.height()));
                const QColor fill = diverging(v, scale);
                painter.fillRect(label, fill);
                painter.setPen(fill.lightnessF() > 0.55 ? kInk : Qt::white);
                painter.drawText(cell, Qt::AlignCenter, QString::number(v, 'f', 2));
            }
    DivergingHeadGrid::paintHeadNumbersAndFrame(painter, l.heatmap, r.num_heads, l.cell_width, kColumnLabels);
}

void AblationPainter::paintColourBar(QPainter& painter, const QRectF& rect) const
{
    const double scale = effectScale(*m_result);
    DivergingHeadGrid::paintColourBar(painter, rect, scale, kBarLabels - 4, kLine);
}

}  // namespace attn
