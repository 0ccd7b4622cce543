#include "ui/heatmap/KvGroupMarks.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>

#include <cmath>

namespace attn {
namespace {

// Two tints taken in turn, so that neighbouring groups read apart.
const QColor kGroupColors[2] = {QColor(0xc2, 0x5b, 0x12), QColor(0x1b, 0x6c, 0xa8)};

}  // namespace

KvGroupMarks::KvGroupMarks(int num_heads, int num_kv_heads) : m_heads(num_heads), m_kv_heads(num_kv_heads)
{
}

QString KvGroupMarks::summary() const
{
    if (!isGrouped())
        return {};
    return QCoreApplication::translate("KvGroupMarks", "%1 key/value heads, each shared by %2 query heads")
        .arg(m_kv_heads)
        .arg(groupSize());
}

void KvGroupMarks::paint(QPainter& painter, const QList<QRectF>& heads, double lift, double separator_top,
                         double separator_bottom) const
{
    if (!isGrouped() || heads.size() < m_heads)
        return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    QFont font = painter.font();
    font.setPixelSize(11);
    font.setBold(true);
    painter.setFont(font);
    const QFontMetricsF metrics(font);
    const double tick = 4;
    int head = 0;
    while (head < m_heads) {
        // A run: consecutive heads of one group on one row.
        const int group = groupOf(head);
        int last = head;
        while (last + 1 < m_heads && groupOf(last + 1) == group &&
               std::abs(heads[last + 1].top() - heads[head].top()) < 0.5)
            ++last;
        const QRectF& first_rect = heads[head];
        const QRectF& last_rect = heads[last];
        const QColor color = kGroupColors[group % 2];
        const double bottom = first_rect.top() - lift - 2;
        const double line_y = bottom - tick;
        const double left = first_rect.left() + 1;
        const double right = last_rect.right() - 1;
        painter.setPen(QPen(color, 1.6));
        painter.setBrush(Qt::NoBrush);
        painter.drawPolyline(
            QPolygonF({QPointF(left, bottom), QPointF(left, line_y), QPointF(right, line_y), QPointF(right, bottom)}));
        const QString label = QStringLiteral("kv %1").arg(group);
        const double label_width = metrics.horizontalAdvance(label) + 6;
        if (label_width < right - left) {
            const QRectF label_rect((left + right - label_width) / 2, line_y - metrics.height() + 2, label_width,
                                    metrics.height());
            painter.fillRect(label_rect, Qt::white);
            painter.setPen(color);
            painter.drawText(label_rect, Qt::AlignCenter, label);
        }
        // The separator before the next group's run on this row.
        if (last + 1 < m_heads && std::abs(heads[last + 1].top() - last_rect.top()) < 0.5) {
            const double x = (last_rect.right() + heads[last + 1].left()) / 2;
            const double top = separator_bottom > separator_top ? separator_top : last_rect.top();
            const double end = separator_bottom > separator_top ? separator_bottom : last_rect.bottom();
            painter.setPen(QPen(QColor(0x50, 0x50, 0x50), 1.2, Qt::DashLine));
            painter.drawLine(QPointF(x, top), QPointF(x, end));
        }
        head = last + 1;
    }
    painter.restore();
}

}  // namespace attn
