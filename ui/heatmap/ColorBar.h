#pragma once

#include "ui/heatmap/ColorMaps.h"

#include <QWidget>

namespace attn {

// A vertical colour bar with ticks, and a "masked" swatch when masked cells are shown. Painted
// with QPainter only, so the same code draws it on screen and into an exported picture.
class ColorBar : public QWidget {
    Q_OBJECT
public:
    explicit ColorBar(QWidget* parent = nullptr);

    void setColorMap(ColorMaps::Map map);
    void setRange(double low, double high);
    void setLabel(const QString& label);
    void setMaskLegendVisible(bool visible);
    void setNote(const QString& note);  // below the bar, e.g. which colour scale is used
    void setLogarithmic(bool logarithmic);  // ticks at powers of ten, low > 0
    bool logarithmic() const { return m_logarithmic; }

    double low() const { return m_low; }
    double high() const { return m_high; }
    QString note() const { return m_note; }

    void paintTo(QPainter* painter, const QRectF& target) const;
    QSize sizeHint() const override { return {78, 300}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    ColorMaps::Map m_map = ColorMaps::Map::Viridis;
    double m_low = 0.0;
    double m_high = 1.0;
    QString m_label;
    bool m_mask_legend = false;
    QString m_note;
    bool m_logarithmic = false;
};

}  // namespace attn
