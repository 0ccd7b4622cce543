#include "ui/views/lens/LensPainter.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

const QColor kInk(0x22, 0x22, 0x22);
const QColor kMuted(0x66, 0x66, 0x66);
const QColor kFrame(0xd6, 0x27, 0x28);
constexpr double kTitleHeight = 26.0;
constexpr double kColumnsHeight = 22.0;
constexpr double kRowsWidth = 54.0;
constexpr double kLegendHeight = 30.0;
constexpr double kPanelWidth = 210.0;

QColor textOn(const QColor& fill)
{
    return fill.lightnessF() > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace

LensPainter::Layout LensPainter::layout(const QRectF& target) const
{
    Layout out;
    const QRectF inner = target.adjusted(8, 4, -8, -4);
    out.title = QRectF(inner.left(), inner.top(), inner.width(), kTitleHeight);
    const double panel = m_pinned >= 0 ? std::min(kPanelWidth, inner.width() * 0.3) : 0.0;
    const double top = out.title.bottom() + kColumnsHeight;
    const double bottom = inner.bottom() - kLegendHeight;
    out.grid =
        QRectF(inner.left() + kRowsWidth, top, std::max(1.0, inner.width() - kRowsWidth - panel - (panel > 0 ? 8 : 0)),
               std::max(1.0, bottom - top));
    out.columns = QRectF(out.grid.left(), out.title.bottom(), out.grid.width(), kColumnsHeight);
    out.rows = QRectF(inner.left(), top, kRowsWidth - 4, out.grid.height());
    out.panel = QRectF(out.grid.right() + 8, out.title.bottom(), panel, bottom - out.title.bottom());
    out.legend = QRectF(out.grid.left(), bottom + 6, std::min(240.0, out.grid.width()), kLegendHeight - 12);
    return out;
}

bool LensPainter::filled(int position) const
{
    return m_result && position >= 0 && position < m_result->seq_len && size_t(position) < m_result->done.size() &&
           m_result->done[size_t(position)];
}

QString LensPainter::label(int id) const
{
    return m_token_label ? m_token_label(id) : QString::number(id);
}

double LensPainter::shadeOf(const LensCell& cell) const
{
    switch (m_shade) {
        case Shade::TopP:
            return cell.top.empty() ? 0.0 : cell.top.front().p;
        case Shade::TrackedP:
            return cell.tracked_p;
        case Shade::TrackedRank:
            // Rank 0 is the top; the scale is logarithmic over the vocabulary.
            return 1.0 - std::log1p(double(cell.tracked_rank)) / std::log1p(double(std::max(1, m_vocab - 1)));
    }
    return 0.0;
}

QString LensPainter::cellText(int row, int position) const
{
    if (!filled(position) || row < 0 || row >= m_result->num_rows)
        return {};
    const LensCell& cell = m_result->at(row, position);
    switch (m_shade) {
        case Shade::TopP:
            return cell.top.empty() ? QString() : label(cell.top.front().id);
        case Shade::TrackedP:
            return QString::number(cell.tracked_p, 'f', 2);
        case Shade::TrackedRank:
            return QString::number(cell.tracked_rank);
    }
    return {};
}

QString LensPainter::hoverText(int row, int position) const
{
    if (!filled(position) || row < 0 || row >= m_result->num_rows)
        return {};
    const LensCell& cell = m_result->at(row, position);
    const QString column = position < m_columns.size() ? m_columns[position] : QString::number(position);
    QStringList lines;
    lines << QStringLiteral("hidden_states[%1] · position %2 \"%3\"").arg(row).arg(position).arg(column);
    for (size_t i = 0; i < cell.top.size(); ++i)
        lines << QStringLiteral("%1. %2  %3").arg(i + 1).arg(label(cell.top[i].id)).arg(cell.top[i].p, 0, 'f', 4);
    if (m_result->tracked)
        lines << QStringLiteral("%1: p %2, rank %3")
                     .arg(label(*m_result->tracked))
                     .arg(cell.tracked_p, 0, 'f', 4)
                     .arg(cell.tracked_rank);
    return lines.join(QLatin1Char('\n'));
}

QStringList LensPainter::pinnedLines() const
{
    if (!filled(m_pinned))
        return {};
    const int row =
        m_highlight_row >= 0 && m_highlight_row < m_result->num_rows ? m_highlight_row : m_result->num_rows - 1;
    QStringList lines = hoverText(row, m_pinned).split(QLatin1Char('\n'));
    return lines;
}

QString LensPainter::title() const
{
    QString what;
    switch (m_shade) {
        case Shade::TopP:
            what = QStringLiteral("Logit lens: top token, coloured by its p");
            break;
        case Shade::TrackedP:
            what = QStringLiteral("Logit lens: p of %1")
                       .arg(m_result && m_result->tracked ? label(*m_result->tracked) : "?");
            break;
        case Shade::TrackedRank:
            what = QStringLiteral("Logit lens: rank of %1")
                       .arg(m_result && m_result->tracked ? label(*m_result->tracked) : "?");
            break;
    }
    return m_caption.isEmpty() ? what : m_caption + QStringLiteral(" · ") + what;
}

void LensPainter::paint(QPainter& painter, const QRectF& target) const
{
    painter.save();
    painter.fillRect(target, Qt::white);
    QFont font = painter.font();
    font.setPointSizeF(9.0);
    painter.setFont(font);
    painter.setPen(kInk);
    if (!m_message.isEmpty() || !m_result) {
        painter.setPen(kMuted);
        painter.drawText(target.adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                         m_message.isEmpty() ? QStringLiteral("Computing the logit lens…") : m_message);
        painter.restore();
        return;
    }
    const LensResult& result = *m_result;
    const Layout box = layout(target);
    QFont bold = font;
    bold.setBold(true);
    painter.setFont(bold);
    painter.drawText(box.title, Qt::AlignLeft | Qt::AlignVCenter, title());
    painter.setFont(font);
    const QFontMetricsF metrics(font);

    const double cell_w = box.grid.width() / std::max(1, result.seq_len);
    const double cell_h = box.grid.height() / std::max(1, result.num_rows);
    // Column labels: every column when they fit, else a stride.
    const int stride = std::max(1, int(std::ceil(44.0 / std::max(1.0, cell_w))));
    for (int t = 0; t < result.seq_len; t += stride) {
        const QRectF label_box(box.grid.left() + t * cell_w, box.columns.top(), cell_w * stride, box.columns.height());
        const QString text = t < m_columns.size() ? m_columns[t] : QString::number(t);
        painter.setPen(t == m_pinned ? kFrame : kInk);
        // Over its own column, as the cells' texts are centred; with a stride, from its column on.
        painter.drawText(label_box, (stride == 1 ? Qt::AlignHCenter : Qt::AlignLeft) | Qt::AlignVCenter,
                         metrics.elidedText(text, Qt::ElideRight, label_box.width() - 2));
    }
    const int row_stride = std::max(1, int(std::ceil(12.0 / std::max(1.0, cell_h))));
    for (int row = 0; row < result.num_rows; ++row) {
        if (row % row_stride != 0 && row != m_highlight_row)
            continue;
        painter.setPen(row == m_highlight_row ? kFrame : kMuted);
        const QRectF label_box(box.rows.left(), box.grid.top() + row * cell_h, box.rows.width(), cell_h);
        painter.drawText(label_box, Qt::AlignRight | Qt::AlignVCenter,
                         row == 0 ? QStringLiteral("embed") : QStringLiteral("h%1").arg(row));
    }
    const bool show_text = cell_h >= 11.0 && cell_w >= 18.0;
    for (int t = 0; t < result.seq_len; ++t) {
        if (!filled(t))
            continue;
        for (int row = 0; row < result.num_rows; ++row) {
            const QRectF cell_box(box.grid.left() + t * cell_w, box.grid.top() + row * cell_h, cell_w, cell_h);
            const QColor fill = ColorMaps::colorAt(m_map, shadeOf(result.at(row, t)));
            painter.fillRect(cell_box, fill);
            if (show_text) {
                painter.setPen(textOn(fill));
                painter.drawText(cell_box.adjusted(2, 0, -2, 0), Qt::AlignCenter,
                                 metrics.elidedText(cellText(row, t), Qt::ElideRight, cell_box.width() - 4));
            }
        }
    }
    painter.setPen(QColor(0xbb, 0xbb, 0xbb));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(box.grid);
    if (m_highlight_row >= 0 && m_highlight_row < result.num_rows) {
        painter.setPen(QPen(kFrame, 2.0));
        painter.drawRect(QRectF(box.grid.left(), box.grid.top() + m_highlight_row * cell_h, box.grid.width(), cell_h));
    }
    if (m_pinned >= 0 && m_pinned < result.seq_len) {
        painter.setPen(QPen(kFrame, 2.0, Qt::DashLine));
        painter.drawRect(QRectF(box.grid.left() + m_pinned * cell_w, box.grid.top(), cell_w, box.grid.height()));
    }
    // The legend: the colour scale.
    const int steps = 48;
    for (int i = 0; i < steps; ++i)
        painter.fillRect(QRectF(box.legend.left() + i * box.legend.width() / steps, box.legend.top(),
                                box.legend.width() / steps + 0.5, box.legend.height()),
                         ColorMaps::colorAt(m_map, (i + 0.5) / steps));
    painter.setPen(kMuted);
    const bool rank = m_shade == Shade::TrackedRank;
    painter.drawText(QRectF(box.legend.right() + 6, box.legend.top() - 4, 360, box.legend.height() + 8),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     rank ? QStringLiteral("rank %1 (left) to 0 (right), logarithmic").arg(m_vocab - 1)
                          : QStringLiteral("p from 0 (left) to 1 (right)"));
    if (box.panel.width() > 0) {
        painter.setPen(kInk);
        QRectF line(box.panel.left(), box.panel.top() + 4, box.panel.width(), metrics.height() + 2);
        for (const QString& text : pinnedLines()) {
            if (line.bottom() > box.panel.bottom())
                break;
            painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
                             metrics.elidedText(text, Qt::ElideRight, line.width()));
            line.translate(0, line.height());
        }
    }
    painter.restore();
}

std::optional<LensPainter::Cell> LensPainter::cellAt(const QPointF& point, const QRectF& target) const
{
    if (!m_result || !m_message.isEmpty())
        return std::nullopt;
    const Layout box = layout(target);
    if (!box.grid.contains(point))
        return std::nullopt;
    const int t = int((point.x() - box.grid.left()) / box.grid.width() * m_result->seq_len);
    const int row = int((point.y() - box.grid.top()) / box.grid.height() * m_result->num_rows);
    if (t < 0 || t >= m_result->seq_len || row < 0 || row >= m_result->num_rows)
        return std::nullopt;
    return Cell{row, t};
}

}  // namespace attn
