#pragma once

#include "core/ops/LinearColumns.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace attn {

// A weight matrix whose every value is a bfloat16 (the weights of a BF16 checkpoint, which is how
// the Llama family, Qwen2 and SmolLM2 come from the hub), stored for the tile units of Intel's
// Advanced Matrix Extensions (AMX). tileProduct() multiplies by it with the same float32 result as
// the float32 product, up to the order of the float32 additions, at 1.2-3x its speed.
//
// Why it is exact: each row of x is split into three bfloat16 parts, x = hi + mid + lo, with
// hi = bf16(x), mid = bf16(x - hi), lo = bf16(x - hi - mid); the three carry 8 significant bits each,
// so their sum is x exactly (every float32 x whose lo part is not below bfloat16's normal range,
// 1e-38, where the tiles read it as 0). The tiles multiply bfloat16 pairs exactly (8 x 8 bits fit
// float32's 24) and add the products in float32: x W = hi W + mid W + lo W, all sums in float32.
//
// Layout, in 64-byte-aligned memory, for W (inner, cols) padded with zeros to inner and cols
// multiples of 32: blocks of 16 columns, each (inner / 2, 16, 2): row pair k, column n holds
// W[2k][n], W[2k + 1][n] (the tiles' "VNNI" order), so that a tile of 32 rows x 16 columns of W is
// 1 KiB of contiguous memory.
class TileWeights {
public:
    // Whether this processor has the tile units (AMX-TILE, AMX-BF16, and AVX512-BF16 for the split)
    // and the kernel lets this process use them. Decided once per process; the environment
    // variable ATTENTION_LAB_TILES=off turns them off (every product then float32 FMA, as on any
    // other processor).
    static bool available();

    // w packed, or nullopt when a value is not a bfloat16 (its low 16 bits not all 0), not finite,
    // or the tiles are not available: the float32 product is then the one to use.
    //   w (inner, cols)
    static std::optional<TileWeights> pack(const ConstBlockRef& w);

    Eigen::Index rows() const { return m_rows; }
    Eigen::Index cols() const { return m_cols; }
    Eigen::Index paddedRows() const { return m_padded_rows; }
    Eigen::Index paddedCols() const { return m_padded_cols; }
    std::size_t bytes() const { return std::size_t(m_padded_rows * m_padded_cols) * sizeof(std::uint16_t); }
    // The 16-column block `block`: (paddedRows() / 2, 16, 2) bfloat16 bits.
    const std::uint16_t* columnBlock(Eigen::Index block) const { return m_data.get() + block * m_padded_rows * 16; }

    // The value of W[row][col], as a float (for tests).
    float at(Eigen::Index row, Eigen::Index col) const;

private:
    struct Free {
        void operator()(std::uint16_t* p) const;
    };
    std::unique_ptr<std::uint16_t, Free> m_data;
    Eigen::Index m_rows = 0;
    Eigen::Index m_cols = 0;
    Eigen::Index m_padded_rows = 0;
    Eigen::Index m_padded_cols = 0;
};

// out = x W + bias on the tiles, the threads sharing out the rows of x (or, for fewer than 32 rows
// a thread, the columns of W) when the product is large enough.
//   x (rows, W.rows()), finite; bias (W.cols()) or nullptr; out (rows, W.cols()).
// Only when TileWeights::available().
void tileProduct(const ConstBlockRef& x, const TileWeights& w, const float* bias, BlockRef out);

}  // namespace attn
