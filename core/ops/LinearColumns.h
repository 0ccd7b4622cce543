#pragma once

#include "core/base/Tensor.h"

namespace attn {

using ConstBlockRef = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;  // a row-major block
using BlockRef = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;

// Rows of x multiplied as one block by the direct kernels; more go in blocks of rows, each a
// product of its own. The direct kernel beats Eigen's packed product up to here. Beyond it x no
// longer fits in the cache beside a strip of w, and blocks of at most 1024 rows keep it there
// (docs/speed-log.md has the measurements).
inline constexpr Eigen::Index kDirectRows = 1024;

// The chunks of columns the threads share out: two of the direct kernel's 3-packet register tiles.
inline constexpr Eigen::Index kChunkCols = 6 * Eigen::internal::packet_traits<float>::size;

// out = x w + bias, the columns shared out in chunks among the threads of the enclosing OpenMP
// parallel region (an orphaned `omp for nowait`: every thread of the region must call it, and
// out is complete only after the region's closing barrier; outside a parallel region the one
// thread computes everything).
//   x (rows, inner), w (inner, cols), bias (cols) or nullptr, out (rows, cols).
// x must be finite. Returns false when a column of out is not finite: when that column of w or of
// the bias holds a NaN or an infinity, or the product overflowed float32 (with no rows, when w or
// the bias is not finite).
//
// Why not simply out = x * w: at short sequence lengths the projections are products of a few rows
// with a large weight matrix. Eigen copies (packs) the whole weight matrix on every call and will
// not split such products across threads; for those, a kernel reading the weights in place, with
// the columns split across the cores, is several times faster. Inputs of more than 1024 rows go in
// blocks of rows, each a product of its own, and so do the rows of x times a w too narrow to give
// each thread two chunks of columns.
bool linearColumns(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out);

// out = x w on the calling thread only: w read in place for a few rows of x, for many through a
// small copy of one block of it at a time (a panel, L1-sized); no zeroing of out first, and never
// threads of its own, unlike Eigen's product (which starts an OpenMP team for a product of more
// than ~100k multiply-adds made outside a parallel region). For up to a thousand rows of x or a
// narrow w: the projections, a head's scores Q_h K_h^T (inner dimension head_dim) and a block of
// weights times V_h (head_dim columns).
//   x (rows, inner), w (inner, cols), out (rows, cols).
void directProduct(const ConstBlockRef& x, const ConstBlockRef& w, BlockRef out);

// The rows of x repacked for the register tiles of directPackedProduct: tile t holds rows
// kPackedTileRows t .. + kPackedTileRows - 1 as (inner, kPackedTileRows), row index fastest, the
// missing rows of the last tile 0. Each tile's multiply then reads x as one contiguous stream
// instead of kPackedTileRows strided rows (which, a multiple of 4 KiB apart, share a few L1 sets).
//   x (rows, inner) -> packed (tiles(rows), inner, kPackedTileRows); tiles [first, last) only.
inline constexpr Eigen::Index kPackedTileRows = 8;
inline Eigen::Index packedTiles(Eigen::Index rows) { return (rows + kPackedTileRows - 1) / kPackedTileRows; }
void packRowTiles(const ConstBlockRef& x, Eigen::Index first_tile, Eigen::Index last_tile, float* packed);

// How the packed kernels read a strip of w: copied into panels that stay in L1 while every tile
// of rows goes through them, or in place by each tile. Which is faster depends on the processor
// (LinearColumns.cpp says why), and the processor decides; the tests force each way
// on any processor, since both must give the same sums.
enum class StripReading { ForThisProcessor, InPlace, ThroughPanels };
void setStripReading(StripReading reading);

// A block of the inner dimension: rows [first, first + count) of w (count -1: to the end), and
// whether the sums continue from out's values (a later block) or start from 0.
struct InnerBlock {
    Eigen::Index first = 0;
    Eigen::Index count = -1;
    bool accumulate = false;
};

// The floats in one of the kernels' vector packets as this build of the engine was compiled (16
// with AVX-512, 8 with AVX, 4 with SSE): its caller may be compiled for another instruction set
// (ATTENTION_LAB_HWCAPS: the program is baseline x86-64, the engine a -v3 or -v4 copy).
Eigen::Index kernelPacketFloats();

// out = x w on the calling thread, x given packed by packRowTiles: the same sums in the same order
// as directProduct for the columns in whole packets; the last cols % packet columns are left unset
// (returns the number of columns done). With an inner block, only that block's terms, continuing
// from out when it accumulates: the blocks in turn give the same sums as one pass.
//   packed (tiles(rows), inner, kPackedTileRows), w (inner, cols), out (rows, cols).
Eigen::Index directPackedProduct(const float* packed, Eigen::Index rows, const ConstBlockRef& w, BlockRef out,
                                 InnerBlock block = {});

}  // namespace attn
