#pragma once

#include "core/base/MaskMatrix.h"
#include "core/base/Tensor.h"

#include <cstdint>
#include <vector>

namespace attn {

// The smallest whole factor that brings both sides to at most `max_side` blocks (1: none).
int reductionFactor(int rows, int columns, int max_side);

// A matrix with more cells than a view has pixels, as blocks of factor x factor cells: each
// block's largest visible cell and the mean of its visible cells, both from one reading of the
// cells. The engine fills one per head while it computes a long input (AttentionOptions::
// block_factor), a plot reduces the matrix it is given with the same code (HeatmapReduction).
struct CellBlocks {
    int factor = 1;
    Matrix max;         // (ceil(rows / factor), ceil(columns / factor))
    Matrix mean;        // the same shape
    MaskMatrix hidden;  // the same shape: true where every cell of the block is masked; empty = none

    bool isEmpty() const { return max.size() == 0; }
    // Zeroed blocks of a (rows, columns) matrix, `hidden` all false.
    static CellBlocks sized(int rows, int columns, int factor);
    // Drops `hidden` when no block is hidden.
    void dropEmptyMask();
};

// Reduces one block row: `lines` (1 .. factor) consecutive rows of a matrix of `columns` columns,
// the first at `values`, `stride` floats apart, masked where `mask` (`mask_stride` bools apart;
// nullptr: nothing masked) is true. Writes each block's largest visible cell to max_out and their
// mean to mean_out (either may be nullptr), and to hidden_out (may be nullptr) whether the block
// has no visible cell (its values are then 0). Sums are of the cells in row order, in double.
class BlockRowReducer {
public:
    void reduce(const float* values, Eigen::Index stride, const bool* mask, Eigen::Index mask_stride, int lines,
                int columns, int factor, float* max_out, float* mean_out, bool* hidden_out);

private:
    std::vector<double> m_sums;
    std::vector<float> m_maxima;
    std::vector<std::int64_t> m_counts;
};

}  // namespace attn
