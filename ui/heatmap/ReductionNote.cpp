#include "ui/heatmap/ReductionNote.h"

#include "ui/heatmap/HeatmapPlot.h"

#include <QLocale>

#include <algorithm>

namespace attn {

QString reductionNote(int rows, int columns, CellReduction how)
{
    const int factor = reductionFactor(rows, columns, HeatmapPlot::kReducedSide);
    if (factor <= 1)
        return {};
    return (how == CellReduction::Max ? HeatmapPlot::tr("each cell: the largest of %1 x %1")
                                      : HeatmapPlot::tr("each cell: the mean of %1 x %1"))
        .arg(factor);
}

QString zoomNote(const QRect& cells, int rows, int columns, int factor, CellReduction how)
{
    const QLocale locale;
    auto span = [&locale](int first, int count) {
        return QStringLiteral("%1–%2").arg(locale.toString(first), locale.toString(first + std::max(1, count) - 1));
    };
    const QString queries = span(cells.y(), cells.height());
    const QString keys = span(cells.x(), cells.width());
    const QString where = rows == columns
                              ? HeatmapPlot::tr("queries %1, keys %2 of %3").arg(queries, keys, locale.toString(rows))
                              : HeatmapPlot::tr("queries %1 of %2, keys %3 of %4")
                                    .arg(queries, locale.toString(rows), keys, locale.toString(columns));
    const QString what = factor <= 1                 ? HeatmapPlot::tr("cells 1:1")
                         : how == CellReduction::Max ? HeatmapPlot::tr("each cell: the largest of %1 x %1").arg(factor)
                                                     : HeatmapPlot::tr("each cell: the mean of %1 x %1").arg(factor);
    return where + QStringLiteral(" · ") + what;
}

}  // namespace attn
