#pragma once

#include <QColor>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace attn {

// Perceptual colour maps as gradient stops (position in [0, 1], colour). QCustomPlot 2.1 has no
// viridis, so the stops are sampled from matplotlib's definitions.
class ColorMaps {
public:
    enum class Map { Viridis, Magma, Cividis, Greys, Diverging };
    using Stops = QList<QPair<double, QColor>>;

    static Stops stops(Map map);
    static QColor colorAt(Map map, double t);  // t clamped to [0, 1], linear between stops
    static QString name(Map map);              // "viridis", ...
    static Map fromName(const QString& name, Map fallback = Map::Viridis);
    static QList<Map> sequential();  // the maps offered for weights
};

}  // namespace attn
