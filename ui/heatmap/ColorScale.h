#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace attn {

// How a view's weights become colours; one choice shared by every heatmap view (grid, one
// head, the A and B of Compare) and by the exports.
enum class ColorScale {
    AllCells,  // linear, 0 .. the largest weight of any head
    // Linear, 0 .. the largest weight in the rows that see more than one key. Under the causal
    // mask row 0 sees only key 0, so its weight is 1 by construction and would leave every other
    // cell dark; such rows are drawn in the top colour and the colour bar says so.
    WithoutOneKeyRows,
    PerRow,      // each row from 0 to its own largest weight: where each query looks, not how much
    Log,         // logarithmic, from the top down to kLogDecades decades below it
    Percentile,  // linear, 0 .. the kPercentile-th percentile of the weights; larger ones clipped
};

struct ColorScales {
    static constexpr double kPercentile = 99.0;
    static constexpr double kLogDecades = 4.0;  // 1 .. 1e-4: below that softmax weights are noise

    static QList<ColorScale> all();
    static QString key(ColorScale scale);  // "all-cells", "without-one-key-rows", ...: settings, files
    static ColorScale fromKey(const QString& key, ColorScale fallback = ColorScale::WithoutOneKeyRows);
    // --color-scale: "linear" (the default, WithoutOneKeyRows), "log", "percentile", and the
    // additions "all-cells" and "per-row"; nullopt for anything else.
    static std::optional<ColorScale> fromCommandLine(const QString& name);
    static QStringList commandLineNames();
    static QString title(ColorScale scale);  // for a chooser
    static QString toolTip(ColorScale scale);
};

}  // namespace attn
