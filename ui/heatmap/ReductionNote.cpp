#include "ui/heatmap/ReductionNote.h"

#include "ui/heatmap/HeatmapPlot.h"

#include <QLocale>

#include <algorithm>

namespace attn {

namespace {

// "each cell: the largest of 4 x 1" (queries x keys), empty when every cell is drawn.
QString blockNote(BlockShape blocks, CellReduction how)
{
    if (!blocks.reduces())
        return {};
    return (how == CellReduction::Max ? HeatmapPlot::tr("each cell: the largest of %1 x %2")
                                      : HeatmapPlot::tr("each cell: the mean of %1 x %2"))
        .arg(blocks.rows)
        .arg(blocks.columns);
}

}  // namespace

QString reductionNote(int rows, int columns, CellReduction how)
{
    return blockNote(blockShape(rows, columns, HeatmapPlot::kReducedSide), how);
}

QString zoomNote(const QRect& cells, int rows, int columns, BlockShape blocks, CellReduction how)
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
    const QString what = blocks.reduces() ? blockNote(blocks, how) : HeatmapPlot::tr("cells 1:1");
    return where + QStringLiteral(" · ") + what;
}

}  // namespace attn
