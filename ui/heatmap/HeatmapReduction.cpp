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
    const bool dimming = top_mass < 1.0;
    std::vector<std::pair<float, int>> scratch;  // AttentionDisplay::topMassCut's, one row at a time
    std::vector<char> kept_any;                  // per drawn column of a block row: a kept cell seen
    const int rows = int(values.rows());
    const int columns = int(values.cols());
    const bool masked_any = mask.rows() == rows && mask.cols() == columns && mask.size() > 0;
    ReducedMatrix reduced;
    reduced.factor = std::max(1, factor);
    const int f = reduced.factor;
    const int drawn_rows = (rows + f - 1) / f;
    const int drawn_columns = (columns + f - 1) / f;
    reduced.values = Matrix::Zero(drawn_rows, drawn_columns);
    MaskMatrix hidden = MaskMatrix::Constant(drawn_rows, drawn_columns, false);
    MaskMatrix dimmed = dimming ? MaskMatrix::Constant(drawn_rows, drawn_columns, false) : MaskMatrix();
    if (dimming)
        kept_any.resize(size_t(drawn_columns));
    BlockRowReducer reducer;  // the engine's reduction of a long input's heads (CellBlocks), cell for cell
    for (int block_row = 0; block_row < drawn_rows; ++block_row) {
        const int first = block_row * f;
        const int lines = std::min(rows, first + f) - first;
        if (dimming) {
            std::fill(kept_any.begin(), kept_any.end(), 0);
            for (int row = first; row < first + lines; ++row) {
                const float* line = values.row(row).data();  // row-major: one row is contiguous
                const AttentionDisplay::TopMassCut cut = AttentionDisplay::topMassCut(line, columns, top_mass, scratch);
                for (int block = 0; block < drawn_columns; ++block) {
                    if (kept_any[size_t(block)])
                        continue;
                    const int end = std::min(columns, (block + 1) * f);
                    for (int column = block * f; column < end; ++column)
                        if (cut.keeps(line[column], column)) {
                            kept_any[size_t(block)] = 1;
                            break;
                        }
                }
            }
            for (int block = 0; block < drawn_columns; ++block)
                dimmed(block_row, block) = !kept_any[size_t(block)];
        }
        float* out = reduced.values.row(block_row).data();
        reducer.reduce(values.row(first).data(), values.outerStride(), masked_any ? mask.row(first).data() : nullptr,
                       mask.outerStride(), lines, columns, f, how == CellReduction::Max ? out : nullptr,
                       how == CellReduction::Mean ? out : nullptr, hidden.row(block_row).data());
    }
    if (hidden.any())
        reduced.mask = std::move(hidden);
    if (dimming)
        reduced.dimmed = std::move(dimmed);
    return reduced;
}

}  // namespace attn
