#pragma once

#include "core/attention/CellBlocks.h"
#include "core/base/MaskMatrix.h"
#include "core/base/Tensor.h"

#include <QString>

#include <optional>

namespace attn {

// What a drawn cell shows when it stands for several cells of the matrix.
enum class CellReduction { Max, Mean };

// "max" and "mean": the settings' and the command line's names.
QString cellReductionKey(CellReduction how);
std::optional<CellReduction> cellReductionFromKey(const QString& key);

// Cells of the matrix per drawn cell along each side. Each side is reduced on its own, so that a
// long side does not merge the cells of a short one (3,388 queries x 7 keys: 4 x 1).
struct BlockShape {
    int rows = 1;
    int columns = 1;
    bool operator==(const BlockShape&) const = default;
    bool reduces() const { return rows > 1 || columns > 1; }
    bool isSquare() const { return rows == columns; }
    static BlockShape square(int factor) { return {factor, factor}; }
};

// Each side on its own: the smallest whole factor that brings it to at most `max_side` blocks.
BlockShape blockShape(int rows, int columns, int max_side);

// A matrix with more cells than a picture has pixels, drawn as blocks of cells.
struct ReducedMatrix {
    Matrix values;      // (ceil(rows / blocks.rows), ceil(columns / blocks.columns)): each block's max or mean
    MaskMatrix mask;    // the same shape: true only where every cell of the block is masked; empty = none
    BlockShape blocks;  // cells per drawn cell along each side
    MaskMatrix dimmed;  // the same shape: true where no cell of the block is among its row's top mass; empty = none
};

// A rectangle of a matrix's cells: what part of it a picture reduces (e.g. a zoomed view).
struct CellWindow {
    int first_row = 0;
    int first_column = 0;
    int rows = 0;
    int columns = 0;
    bool operator==(const CellWindow&) const = default;
};

inline CellWindow wholeOf(const Matrix& values)
{
    return {0, 0, int(values.rows()), int(values.cols())};
}

// Each block of factor x factor cells of `values` (rows, columns) as one cell: the largest of
// its visible cells, or their mean; masked cells count for nothing, and a block with no visible
// cell is masked. Read straight from the floats: nothing of the matrix's size is allocated. The
// blocks are CellBlocks' (BlockRowReducer), as the engine reduces a long input's heads.
// `mask` is (rows, columns) or empty (nothing masked). With top_mass < 1 a block is dimmed when
// none of its cells is among the strongest keys of its row that reach that share of the row's
// weight (AttentionDisplay::topMass, found per row without a mask of the matrix's size).
ReducedMatrix reduceCells(const Matrix& values, const MaskMatrix& mask, int factor, CellReduction how,
                          double top_mass = 1.0);
// The same for `window` of `values` only (clamped to the matrix): blocks start at its first row
// and column, and the top mass is still that of whole rows.
ReducedMatrix reduceCells(const Matrix& values, const MaskMatrix& mask, CellWindow window, int factor,
                          CellReduction how, double top_mass = 1.0);
// Blocks of blocks.rows x blocks.columns cells.
ReducedMatrix reduceCells(const Matrix& values, const MaskMatrix& mask, CellWindow window, BlockShape blocks,
                          CellReduction how, double top_mass = 1.0);

}  // namespace attn
