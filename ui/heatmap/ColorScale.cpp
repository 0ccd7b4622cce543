#include "ui/heatmap/ColorScale.h"

#include <QCoreApplication>

namespace attn {

QList<ColorScale> ColorScales::all()
{
    return {ColorScale::WithoutOneKeyRows, ColorScale::AllCells};
}

QString ColorScales::key(ColorScale scale)
{
    switch (scale) {
        case ColorScale::AllCells:
            return QStringLiteral("all-cells");
        case ColorScale::WithoutOneKeyRows:
            return QStringLiteral("without-one-key-rows");
    }
    return {};
}

ColorScale ColorScales::fromKey(const QString& key, ColorScale fallback)
{
    for (ColorScale scale : all())
        if (ColorScales::key(scale) == key)
            return scale;
    return fallback;
}

QString ColorScales::title(ColorScale scale)
{
    switch (scale) {
        case ColorScale::AllCells:
            return QCoreApplication::translate("ColorScales", "Scale: all cells");
        case ColorScale::WithoutOneKeyRows:
            return QCoreApplication::translate("ColorScales", "Scale: without one-key rows");
    }
    return {};
}

QString ColorScales::toolTip(ColorScale scale)
{
    switch (scale) {
        case ColorScale::AllCells:
            return QCoreApplication::translate("ColorScales", "The colour scale runs from 0 to the largest weight");
        case ColorScale::WithoutOneKeyRows:
            return QCoreApplication::translate(
                "ColorScales",
                "The colour scale ignores rows that see a single key (row 0 under the causal mask, whose weight "
                "is 1 by construction); they are drawn in the top colour");
    }
    return {};
}

}  // namespace attn
