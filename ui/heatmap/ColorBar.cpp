#include "ui/heatmap/ColorBar.h"

#include "ui/heatmap/Hatch.h"

#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace attn {

ColorBar::ColorBar(QWidget* parent) : QWidget(parent)
{
    setMinimumWidth(70);
    setToolTip(tr("Colour scale shared by every head"));
}

void ColorBar::setColorMap(ColorMaps::Map map)
{
    m_map = map;
    update();
}
void ColorBar::setRange(double low, double high)
{
    m_low = low;
    m_high = high;
    update();
}
void ColorBar::setLabel(const QString& label)
{
    m_label = label;
    update();
}
void ColorBar::setMaskLegendVisible(bool visible)
{
    m_mask_legend = visible;
    update();
}
void ColorBar::setNote(const QString& note)
{
    m_note = note;
    update();
}

void ColorBar::setLogarithmic(bool logarithmic)
{
    m_logarithmic = logarithmic;
    update();
}

void ColorBar::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    paintTo(&painter, rect());
}

// "Nice" tick step: 1, 2 or 5 times a power of ten, about five ticks over the range.
static double niceStep(double range)
{
    const double raw = range / 5.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double factor : {1.0, 2.0, 5.0, 10.0})
        if (raw <= factor * magnitude)
            return factor * magnitude;
    return 10.0 * magnitude;
}

void ColorBar::paintTo(QPainter* painter, const QRectF& target) const
{
    painter->save();
    QFont font = painter->font();
    font.setPixelSize(11);
    painter->setFont(font);
    const QFontMetricsF metrics(font);
    const double legend_height = m_mask_legend ? 40.0 : 0.0;
    const double label_height = m_label.isEmpty() ? 0.0 : metrics.height() + 6;
    const QRectF note_area(target.left(), 0, target.width(), target.height() / 3);
    const QRectF note_bounds =
        m_note.isEmpty() ? QRectF() : metrics.boundingRect(note_area, Qt::TextWordWrap | Qt::AlignLeft, m_note);
    const double note_height = m_note.isEmpty() ? 0.0 : note_bounds.height() + 8;
    const QRectF bar(target.left() + 6, target.top() + 10 + label_height, 14,
                     std::max(20.0, target.height() - 20 - legend_height - label_height - note_height));
    if (!m_label.isEmpty()) {
        painter->setPen(QColor(0x30, 0x30, 0x30));
        painter->drawText(QRectF(target.left(), target.top() + 4, target.width(), metrics.height()),
                          Qt::AlignLeft | Qt::AlignVCenter, m_label);
    }
    QLinearGradient gradient(bar.bottomLeft(), bar.topLeft());  // low at the bottom
    for (const auto& [position, color] : ColorMaps::stops(m_map))
        gradient.setColorAt(position, color);
    painter->setPen(QPen(QColor(0x9e, 0x9e, 0x9e), 1));
    painter->setBrush(gradient);
    painter->drawRect(bar);

    const double range = m_high - m_low;
    if (m_logarithmic && m_low > 0 && m_high > m_low) {
        // A tick at every power of ten inside the range, placed as the colours are: by log(value).
        const double decades = std::log10(m_high / m_low);
        painter->setPen(QColor(0x30, 0x30, 0x30));
        for (double exponent = std::ceil(std::log10(m_low) - 1e-9); exponent <= std::log10(m_high) + 1e-9;
             exponent += 1.0) {
            const double tick = std::pow(10.0, exponent);
            const double y = bar.bottom() - std::log10(tick / m_low) / decades * bar.height();
            painter->drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
            painter->drawText(QRectF(bar.right() + 7, y - 8, target.right() - bar.right() - 7, 16),
                              Qt::AlignLeft | Qt::AlignVCenter, QString::number(tick, 'g', 1));
        }
    } else if (range > 0 && std::isfinite(range)) {
        double step = niceStep(range);
        // A short bar (a small window's): fewer ticks, their labels at least a line apart.
        while (step < range && bar.height() * step / range < metrics.height() + 2)
            step = niceStep(step * 10.0);  // the next of 1, 2, 5 x 10^n
        const int decimals = std::max(0, int(-std::floor(std::log10(step))));
        painter->setPen(QColor(0x30, 0x30, 0x30));
        const auto drawTick = [&](double tick, const QString& text) {
            const double y = bar.bottom() - (tick - m_low) / range * bar.height();
            painter->drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
            painter->drawText(QRectF(bar.right() + 7, y - 8, target.right() - bar.right() - 7, 16),
                              Qt::AlignLeft | Qt::AlignVCenter, text);
        };
        const double first = std::ceil(m_low / step) * step;
        if (first + step > m_high + step * 1e-6) {
            // Too short for two round ticks: the two ends, so that the scale can still be read.
            drawTick(m_low, QString::number(m_low, 'g', 2));
            drawTick(m_high, QString::number(m_high, 'g', 2));
        } else {
            for (double tick = first; tick <= m_high + step * 1e-6; tick += step)
                drawTick(tick, QString::number(tick, 'f', decimals));
        }
    }
    if (m_mask_legend) {
        const QRectF swatch(bar.left(), bar.bottom() + 14, 14, 14);
        Hatch::draw(painter, {swatch}, 4.0);
        painter->setPen(QColor(0x30, 0x30, 0x30));
        painter->drawText(QRectF(swatch.right() + 5, swatch.top() - 2, target.right() - swatch.right() - 5, 18),
                          Qt::AlignLeft | Qt::AlignVCenter, tr("masked"));
    }
    if (!m_note.isEmpty()) {
        painter->setPen(QColor(0x30, 0x30, 0x30));
        painter->drawText(QRectF(target.left(), bar.bottom() + legend_height + 8, target.width(), note_bounds.height()),
                          Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, m_note);
    }
    painter->restore();
}

}  // namespace attn
