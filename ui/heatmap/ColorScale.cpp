#include "ui/heatmap/ColorScale.h"

#include <QCoreApplication>

namespace attn {

QList<ColorScale> ColorScales::all()
{
    return {ColorScale::WithoutOneKeyRows, ColorScale::AllCells, ColorScale::PerRow, ColorScale::Log,
            ColorScale::Percentile};
}

QString ColorScales::key(ColorScale scale)
{
    switch (scale) {
        case ColorScale::AllCells:
            return QStringLiteral("all-cells");
        case ColorScale::WithoutOneKeyRows:
            return QStringLiteral("without-one-key-rows");
        case ColorScale::PerRow:
            return QStringLiteral("per-row");
        case ColorScale::Log:
            return QStringLiteral("log");
        case ColorScale::Percentile:
            return QStringLiteral("percentile");
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

std::optional<ColorScale> ColorScales::fromCommandLine(const QString& name)
{
    if (name == u"linear")
        return ColorScale::WithoutOneKeyRows;
    if (name == u"without-one-key-rows")
        return std::nullopt;  // spelt "linear" on the command line
    for (ColorScale scale : all())
        if (key(scale) == name)
            return scale;
    return std::nullopt;
}

QStringList ColorScales::commandLineNames()
{
    return {QStringLiteral("linear"), QStringLiteral("log"), QStringLiteral("percentile"), QStringLiteral("all-cells"),
            QStringLiteral("per-row")};
}

QString ColorScales::title(ColorScale scale)
{
    switch (scale) {
        case ColorScale::AllCells:
            return QCoreApplication::translate("ColorScales", "Scale: linear, all cells");
        case ColorScale::WithoutOneKeyRows:
            return QCoreApplication::translate("ColorScales", "Scale: linear");
        case ColorScale::PerRow:
            return QCoreApplication::translate("ColorScales", "Scale: each row to its max");
        case ColorScale::Log:
            return QCoreApplication::translate("ColorScales", "Scale: logarithmic");
        case ColorScale::Percentile:
            return QCoreApplication::translate("ColorScales", "Scale: clipped at the 99th percentile");
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
                "The colour scale runs from 0 to the largest weight, ignoring rows that see a single key (row 0 under "
                "the causal mask, whose weight is 1 by construction); they are drawn in the top colour");
        case ColorScale::PerRow:
            return QCoreApplication::translate(
                "ColorScales", "Each query row is scaled to its own largest weight: where each query looks");
        case ColorScale::Log:
            return QCoreApplication::translate(
                "ColorScales", "Logarithmic colours over four decades below the largest weight: small weights show");
        case ColorScale::Percentile:
            return QCoreApplication::translate(
                "ColorScales",
                "The colour scale runs from 0 to the 99th percentile of the weights; larger weights (attention "
                "sinks) are drawn in the top colour");
    }
    return {};
}

}  // namespace attn
