#include "ui/views/DivergingHeadGrid.h"

#include "ui/heatmap/ColorMaps.h"

#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attn::DivergingHeadGrid {
namespace {

const QColor kMuted(0x66, 0x66, 0x66);
const QColor kAxis(0xbb, 0xbb, 0xbb);

}  // namespace

void paintColourBar(QPainter& painter, const QRectF& rect, double scale, double label_width, double line)
{
    QLinearGradient gradient(rect.bottomLeft(), rect.topLeft());
    for (int step = 0; step <= 10; ++step)
        gradient.setColorAt(step / 10.0, ColorMaps::colorAt(ColorMaps::Map::Diverging, step / 10.0));
    painter.fillRect(rect, gradient);
    painter.setPen(kAxis);
    painter.drawRect(rect);
    painter.setPen(kMuted);
    const QRectF labels(rect.right() + 4, rect.top() - line / 2, label_width, rect.height() + line);
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignTop, QStringLiteral("+") + QString::number(scale, 'g', 3));
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("0"));
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignBottom, QStringLiteral("−") + QString::number(scale, 'g', 3));
}

void paintHeadNumbersAndFrame(QPainter& painter, const QRectF& heatmap, int num_heads, double cell_width, double band)
{
    painter.setPen(kMuted);
    const int step = std::max(1, int(std::ceil(24.0 / cell_width)));
    for (int head = 0; head < num_heads; head += step)
        painter.drawText(QRectF(heatmap.left() + head * cell_width, heatmap.top() - band, cell_width, band),
                         Qt::AlignCenter, QString::number(head));
    painter.setPen(kAxis);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(heatmap);
}

}  // namespace attn::DivergingHeadGrid
