#pragma once

#include <QList>
#include <QString>

namespace attn {

// Which weights set the top of a view's shared colour scale (the bottom is 0). A typed choice
// that can grow: log and percentile scales are planned beside these.
enum class ColorScale {
    AllCells,  // 0 .. the largest weight of any head
    // 0 .. the largest weight in the rows that see more than one key. Under the causal mask row 0
    // sees only key 0, so its weight is 1 by construction and would leave every other cell dark;
    // such rows are drawn in the top colour and the colour bar says so.
    WithoutOneKeyRows,
};

struct ColorScales {
    static QList<ColorScale> all();
    static QString key(ColorScale scale);  // "all-cells", "without-one-key-rows": settings, files
    static ColorScale fromKey(const QString& key, ColorScale fallback = ColorScale::WithoutOneKeyRows);
    static QString title(ColorScale scale);  // for a chooser
    static QString toolTip(ColorScale scale);
};

}  // namespace attn
