#include "core/ops/Linear.h"

#include "core/ops/ParallelWork.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace attn {
namespace {

constexpr Eigen::Index kPacket = Eigen::internal::packet_traits<float>::size;

// With w fewer than this many times as wide as x is tall, the threads share out the rows, not the
// columns: each packs its own rows of x and multiplies them by all of w. Shared by columns, every
// thread reads all of packed x, half of it from the other core's cache just after the other
// packed it, and a few column chunks split unevenly. Narrow products such as Qwen2's K and V
// projections (896 x 128) gain most; square ones are level either way.
constexpr Eigen::Index kRowSplitRatio = 4;

// When packed x is larger than this, the threads go through the inner dimension a block at a time
// (all columns of one block before the next), each block's rows of packed x about
// kInnerBlockBytes, so that they stay in L2 while every column strip passes over them: the MLPs'
// down projections gain; below 1 MB packed x stays in L2 anyway and blocking only costs.
constexpr Eigen::Index kInnerBlockFrom = Eigen::Index(1) << 20;
constexpr Eigen::Index kInnerBlockBytes = Eigen::Index(512) << 10;
constexpr Eigen::Index kInnerBlockStep = 128;  // the packed kernel's panel of w

// Rows of w per inner block for packed x of `rows` rows and `inner` columns: all of them, or
// multiples of the panel that keep a block's packed x near kInnerBlockBytes.
Eigen::Index innerBlockRows(Eigen::Index rows, Eigen::Index inner)
{
    const Eigen::Index bytes_per_row_of_w = rows * Eigen::Index(sizeof(float));
    if (bytes_per_row_of_w * inner <= kInnerBlockFrom)
        return inner;
    return std::min(inner, std::max(kInnerBlockStep, kInnerBlockBytes / bytes_per_row_of_w / kInnerBlockStep * kInnerBlockStep));
}

// The inner block from row `first` of w: up to block_rows rows, the sums continuing after the
// first block.
InnerBlock innerBlockAt(Eigen::Index first, Eigen::Index block_rows, Eigen::Index inner)
{
    return {first, std::min(block_rows, inner - first), first > 0};
}

// out = x w + bias for rows [first_tile, last_tile) of packed tiles, by the calling thread alone,
// in inner blocks as linear() when its packed rows are large.
void packedRows(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out, float* packed,
                Eigen::Index first_tile, Eigen::Index last_tile)
{
    if (first_tile >= last_tile)
        return;
    packRowTiles(x, first_tile, last_tile, packed);
    const Eigen::Index first_row = first_tile * kPackedTileRows;
    const Eigen::Index rows = std::min(x.rows(), last_tile * kPackedTileRows) - first_row;
    auto out_rows = out.middleRows(first_row, rows);  // (rows, cols)
    const Eigen::Index cols = w.cols();
    const Eigen::Index inner = x.cols();
    const Eigen::Index block_rows = innerBlockRows(rows, inner);
    Eigen::Index done = 0;
    for (Eigen::Index block_first = 0; block_first < inner; block_first += block_rows)
        done = directPackedProduct(packed + first_tile * inner * kPackedTileRows, rows, w, out_rows,
                                   innerBlockAt(block_first, block_rows, inner));
    if (done < cols)
        directProduct(x.middleRows(first_row, rows), w.rightCols(cols - done), out_rows.rightCols(cols - done));
    if (bias)
        out_rows.rowwise() += Eigen::Map<const RowVector>(bias, cols);
}

}  // namespace

bool linear(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out, bool check_finite)
{
    const Eigen::Index cols = w.cols();
    const auto bias_row = Eigen::Map<const RowVector>(bias, bias ? cols : 0);  // (cols)
    if (check_finite && (!allFinite(w) || !allFinite(bias_row)))
        return false;

    if (x.rows() > kDirectRows) {
        // Blocks of rows of at most kDirectRows, each a product of its own: each block's packed x
        // stays the size it has at kDirectRows rows, in the cache beside a strip of w, which
        // Eigen's blocked product of all of them does not keep.
        const Eigen::Index blocks = (x.rows() + kDirectRows - 1) / kDirectRows;
        const Eigen::Index block_rows = (x.rows() + blocks - 1) / blocks;
        for (Eigen::Index first = 0; first < x.rows(); first += block_rows) {
            const Eigen::Index rows = std::min(block_rows, x.rows() - first);
            linear(x.middleRows(first, rows), w, bias, out.middleRows(first, rows), false);
        }
        return true;
    }
    const std::int64_t work = std::int64_t(x.rows()) * w.rows() * cols;
    // The direct kernel reads x packed in tiles of rows (packRowTiles), packed once for every
    // column chunk, in a buffer kept for the next call of this thread.
    const bool packed = cols >= 3 * kPacket;
    thread_local std::vector<float> packed_x;  // (tiles, inner, kPackedTileRows)
    if (packed)
        packed_x.resize(size_t(packedTiles(x.rows()) * x.cols() * kPackedTileRows));
    float* const packed_data = packed_x.data();
    const bool parallel = work >= kParallelWork;
    if (packed && parallel && cols < kRowSplitRatio * x.rows()) {
        const Eigen::Index tiles = packedTiles(x.rows());
#pragma omp parallel
        {
            const Eigen::Index threads = omp_get_num_threads();
            const Eigen::Index thread = omp_get_thread_num();
            packedRows(x, w, bias, out, packed_data, tiles * thread / threads, tiles * (thread + 1) / threads);
        }
        return true;
    }
#pragma omp parallel if (parallel)
    {
        if (packed) {
#pragma omp for schedule(static)
            for (Eigen::Index tile = 0; tile < packedTiles(x.rows()); ++tile)
                packRowTiles(x, tile, tile + 1, packed_data);
        }
        // Chunks two tiles of the direct kernel wide, handed out one at a time: a thread the other
        // processes hold up leaves only its current chunk to wait for.
        const Eigen::Index chunks = (cols + kChunkCols - 1) / kChunkCols;
        const Eigen::Index inner = x.cols();
        const Eigen::Index block_rows = packed ? innerBlockRows(x.rows(), inner) : inner;
        for (Eigen::Index block_first = 0; block_first < inner; block_first += block_rows) {
            const InnerBlock block = innerBlockAt(block_first, block_rows, inner);
            const bool last_block = block.first + block.count == inner;
#pragma omp for schedule(dynamic, 1)
            for (Eigen::Index chunk = 0; chunk < chunks; ++chunk) {
                const Eigen::Index first = chunk * kChunkCols;
                const Eigen::Index count = std::min(kChunkCols, cols - first);
                auto out_slice = out.middleCols(first, count);  // (rows, count)
                if (packed) {
                    const Eigen::Index done =
                        directPackedProduct(packed_data, x.rows(), w.middleCols(first, count), out_slice, block);
                    if (done < count && last_block)
                        directProduct(x, w.middleCols(first + done, count - done), out_slice.rightCols(count - done));
                } else
                    directProduct(x, w.middleCols(first, count), out_slice);
                if (bias && last_block)
                    out_slice.rowwise() += bias_row.segment(first, count);
            }
        }
    }
    return true;
}

}  // namespace attn
