#include "ui/heatmap/ColorMaps.h"

#include <algorithm>

namespace attn {
namespace {

ColorMaps::Stops evenly(std::initializer_list<const char*> hex)
{
    ColorMaps::Stops stops;
    const double step = 1.0 / double(hex.size() - 1);
    int i = 0;
    for (const char* h : hex)
        stops.append({step * i++, QColor(QLatin1String(h))});
    return stops;
}

}  // namespace

ColorMaps::Stops ColorMaps::stops(Map map)
{
    switch (map) {
        case Map::Viridis:
            return evenly({"#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c", "#22a884", "#44bf70",
                           "#7ad151", "#bddf26", "#fde725"});
        case Map::Magma:
            return evenly({"#000004", "#140e36", "#3b0f70", "#641a80", "#8c2981", "#b73779", "#de4968", "#f7705c",
                           "#fe9f6d", "#fecf92", "#fcfdbf"});
        case Map::Cividis:
            return evenly({"#00224e", "#123570", "#3b496c", "#575d6d", "#707173", "#8a8779", "#a69d75", "#c4b56c",
                           "#e4cf5b", "#fee838"});
        case Map::Greys:
            return evenly(
                {"#ffffff", "#f0f0f0", "#d9d9d9", "#bdbdbd", "#969696", "#737373", "#525252", "#252525", "#000000"});
        case Map::Diverging:
            return evenly({"#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582",
                           "#d6604d", "#b2182b", "#67001f"});
    }
    return {};
}

QColor ColorMaps::colorAt(Map map, double t)
{
    const Stops s = stops(map);
    t = std::clamp(t, 0.0, 1.0);
    for (qsizetype i = 1; i < s.size(); ++i) {
        if (t <= s[i].first) {
            const double f = (t - s[i - 1].first) / (s[i].first - s[i - 1].first);
            const QColor& a = s[i - 1].second;
            const QColor& b = s[i].second;
            return QColor::fromRgbF(float(a.redF() + f * (b.redF() - a.redF())),
                                    float(a.greenF() + f * (b.greenF() - a.greenF())),
                                    float(a.blueF() + f * (b.blueF() - a.blueF())));
        }
    }
    return s.last().second;
}

QString ColorMaps::name(Map map)
{
    switch (map) {
        case Map::Viridis:
            return QStringLiteral("viridis");
        case Map::Magma:
            return QStringLiteral("magma");
        case Map::Cividis:
            return QStringLiteral("cividis");
        case Map::Greys:
            return QStringLiteral("greys");
        case Map::Diverging:
            return QStringLiteral("diverging");
    }
    return {};
}

ColorMaps::Map ColorMaps::fromName(const QString& name, Map fallback)
{
    for (Map m : {Map::Viridis, Map::Magma, Map::Cividis, Map::Greys, Map::Diverging})
        if (ColorMaps::name(m) == name.toLower())
            return m;
    return fallback;
}

QList<ColorMaps::Map> ColorMaps::sequential()
{
    return {Map::Viridis, Map::Magma, Map::Cividis, Map::Greys};
}

}  // namespace attn
