#include "ui/heatmap/HeatmapReduction.h"

#include "core/analysis/AttentionDisplay.h"

#include <algorithm>
#include <vector>

namespace attn {

QString cellReductionKey(CellReduction how)
{
    return how == CellReduction::Mean ? QStringLiteral("mean") : QStringLiteral("max");
}

std::optional<CellReduction> cellReductionFromKey(const QString& key)
{
    if (key == QLatin1String("max"))
        return CellReduction::Max;
    if (key == QLatin1String("mean"))
        return CellReduction::Mean;
    return std::nullopt;
}

ReducedMatrix reduceCells(const Matrix& values, const MaskMatrix& mask, int factor, CellReduction how, double top_mass)
{
    return reduceCells(values, mask, CellWindow{0, 0, int(values.rows()), int(values.cols())}, factor, how, top_mass);
}

BlockShape blockShape(int rows, int columns, int max_side)
{
    const int side = std::max(1, max_side);
    return {std::max(1, (rows + side - 1) / side), std::max(1, (columns + side - 1) / side)};
}

ReducedMatrix reduceCells(const Matrix& values, const MaskMatrix& mask, CellWindow window, int factor,
                          CellReduction how, double top_mass)
{
    return reduceCells(values, mask, window, BlockShape::square(std::max(1, factor)), how, top_mass);
}

ReducedMatrix reduceCells(const Matrix& values, const MaskMatrix& mask, CellWindow window, BlockShape blocks,
                          CellReduction how, double top_mass)
{
    const bool dimming = top_mass < 1.0;
    std::vector<std::pair<float, int>> scratch;  // AttentionDisplay::topMassCut's, one row at a time
    std::vector<char> kept_any;                  // per drawn column of a block row: a kept cell seen
    const int all_columns = int(values.cols());
    const bool masked_any = mask.rows() == values.rows() && mask.cols() == values.cols() && mask.size() > 0;
    // The window within the matrix; below, rows and columns count from its first row and column.
    const int first_row = std::clamp(window.first_row, 0, int(values.rows()));
    const int first_column = std::clamp(window.first_column, 0, all_columns);
    const int rows = std::clamp(window.rows, 0, int(values.rows()) - first_row);
    const int columns = std::clamp(window.columns, 0, all_columns - first_column);
    ReducedMatrix reduced;
    reduced.blocks = {std::max(1, blocks.rows), std::max(1, blocks.columns)};
    const int f = reduced.blocks.rows;     // rows of the matrix per drawn row
    const int g = reduced.blocks.columns;  // columns per drawn column
    const int drawn_rows = (rows + f - 1) / f;
    const int drawn_columns = (columns + g - 1) / g;
    reduced.values = Matrix::Zero(drawn_rows, drawn_columns);
    MaskMatrix hidden = MaskMatrix::Constant(drawn_rows, drawn_columns, false);
    MaskMatrix dimmed = dimming ? MaskMatrix::Constant(drawn_rows, drawn_columns, false) : MaskMatrix();
    if (dimming)
        kept_any.resize(size_t(drawn_columns));
    BlockRowReducer reducer;  // the engine's reduction of a long input's heads (CellBlocks), cell for cell
    for (int block_row = 0; block_row < drawn_rows; ++block_row) {
        const int first = first_row + block_row * f;  // the block row's first row of the matrix
        const int lines = std::min(first_row + rows, first + f) - first;
        if (dimming) {
            std::fill(kept_any.begin(), kept_any.end(), 0);
            for (int row = first; row < first + lines; ++row) {
                const float* whole_line = values.row(row).data();  // row-major: one row is contiguous
                const float* line = whole_line + first_column;
                const AttentionDisplay::TopMassCut cut =
                    AttentionDisplay::topMassCut(whole_line, all_columns, top_mass, scratch);
                for (int block = 0; block < drawn_columns; ++block) {
                    if (kept_any[size_t(block)])
                        continue;
                    const int end = std::min(columns, (block + 1) * g);
                    for (int column = block * g; column < end; ++column)
                        if (cut.keeps(line[column], first_column + column)) {
                            kept_any[size_t(block)] = 1;
                            break;
                        }
                }
            }
            for (int block = 0; block < drawn_columns; ++block)
                dimmed(block_row, block) = !kept_any[size_t(block)];
        }
        float* out = reduced.values.row(block_row).data();
        reducer.reduce(values.row(first).data() + first_column, values.outerStride(),
                       masked_any ? mask.row(first).data() + first_column : nullptr, mask.outerStride(), lines, columns,
                       g, how == CellReduction::Max ? out : nullptr, how == CellReduction::Mean ? out : nullptr,
                       hidden.row(block_row).data());
    }
    if (hidden.any())
        reduced.mask = std::move(hidden);
    if (dimming)
        reduced.dimmed = std::move(dimmed);
    return reduced;
}

}  // namespace attn
