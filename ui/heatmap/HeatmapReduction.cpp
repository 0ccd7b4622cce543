#include "ui/heatmap/HeatmapReduction.h"

#include "core/analysis/AttentionDisplay.h"

#include <algorithm>
#include <cstdint>
#include <limits>
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

int reductionFactor(int rows, int columns, int max_side)
{
    const int side = std::max({1, rows, columns});
    return std::max(1, (side + max_side - 1) / std::max(1, max_side));
}

ReducedMatrix reduceCells(const Matrix& values, const MaskMatrix& mask, int factor, CellReduction how, double top_mass)
{
    return reduceCells(values, mask, CellWindow{0, 0, int(values.rows()), int(values.cols())}, factor, how, top_mass);
}

ReducedMatrix reduceCells(const Matrix& values, const MaskMatrix& mask, CellWindow window, int factor,
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
    reduced.factor = std::max(1, factor);
    const int f = reduced.factor;
    const int drawn_rows = (rows + f - 1) / f;
    const int drawn_columns = (columns + f - 1) / f;
    reduced.values = Matrix::Zero(drawn_rows, drawn_columns);
    MaskMatrix hidden = MaskMatrix::Constant(drawn_rows, drawn_columns, false);
    std::vector<double> sums(static_cast<size_t>(drawn_columns));  // one block row at a time
    std::vector<float> maxima(static_cast<size_t>(drawn_columns));
    std::vector<std::int64_t> counts(static_cast<size_t>(drawn_columns));  // visible cells per block
    MaskMatrix dimmed = dimming ? MaskMatrix::Constant(drawn_rows, drawn_columns, false) : MaskMatrix();
    if (dimming)
        kept_any.resize(size_t(drawn_columns));
    for (int block_row = 0; block_row < drawn_rows; ++block_row) {
        std::fill(sums.begin(), sums.end(), 0.0);
        std::fill(maxima.begin(), maxima.end(), -std::numeric_limits<float>::infinity());
        std::fill(counts.begin(), counts.end(), 0);
        std::fill(kept_any.begin(), kept_any.end(), 0);
        const int row_end = std::min(rows, (block_row + 1) * f);
        for (int row = block_row * f; row < row_end; ++row) {
            const float* whole_line = values.row(first_row + row).data();  // row-major: one row is contiguous
            const float* line = whole_line + first_column;
            const bool* hides = masked_any ? mask.row(first_row + row).data() + first_column : nullptr;
            if (dimming) {
                const AttentionDisplay::TopMassCut cut =
                    AttentionDisplay::topMassCut(whole_line, all_columns, top_mass, scratch);
                for (int block = 0; block < drawn_columns; ++block) {
                    if (kept_any[size_t(block)])
                        continue;
                    const int end = std::min(columns, (block + 1) * f);
                    for (int column = block * f; column < end; ++column)
                        if (cut.keeps(line[column], first_column + column)) {
                            kept_any[size_t(block)] = 1;
                            break;
                        }
                }
            }
            for (int block = 0; block < drawn_columns; ++block) {
                const int begin = block * f;
                const int end = std::min(columns, begin + f);
                double sum = 0.0;
                float largest = maxima[size_t(block)];
                int visible = 0;
                for (int column = begin; column < end; ++column) {
                    if (hides && hides[column])
                        continue;
                    sum += line[column];
                    largest = std::max(largest, line[column]);
                    ++visible;
                }
                sums[size_t(block)] += sum;
                maxima[size_t(block)] = largest;
                counts[size_t(block)] += visible;
            }
        }
        for (int block = 0; block < drawn_columns; ++block) {
            if (dimming && !kept_any[size_t(block)])
                dimmed(block_row, block) = true;
            if (counts[size_t(block)] == 0) {
                hidden(block_row, block) = true;
                continue;
            }
            reduced.values(block_row, block) = how == CellReduction::Max
                                                   ? maxima[size_t(block)]
                                                   : float(sums[size_t(block)] / double(counts[size_t(block)]));
        }
    }
    if (hidden.any())
        reduced.mask = std::move(hidden);
    if (dimming)
        reduced.dimmed = std::move(dimmed);
    return reduced;
}

}  // namespace attn
