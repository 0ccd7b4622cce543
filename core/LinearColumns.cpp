#include "LinearColumns.h"

#include <algorithm>

#include <omp.h>

namespace attn {
namespace {

using Index = Eigen::Index;
using Packet = Eigen::internal::packet_traits<float>::type;  // 16 floats with AVX-512, 8 with AVX
constexpr Index kPacket = Eigen::internal::packet_traits<float>::size;

// Up to this many rows of x, the direct kernel beats Eigen's packed product (measured on the
// 2-core AVX-512 machine, d_model 512 and 768: 3x at 8 rows, 1.3x at 64, 1.15x at 128, still
// ahead at 512; even at 1024).
constexpr Index kDirectRows = 512;

// The direct kernel's register tile: kTileRows rows of x times kTilePackets packets of columns,
// 8 x 3 = 24 accumulators of the 32 AVX-512 registers.
constexpr int kTileRows = 8;
constexpr int kTilePackets = 3;
constexpr Index kTileCols = kTilePackets * kPacket;

// Rows ahead of the current one to prefetch: the rows of a column slice of w lie a whole row of
// w apart (6 KiB for d_model 512), too far for the hardware prefetcher to follow.
constexpr Index kPrefetchRows = 12;

// out[r][0, kTileCols) = sum_i x[r][i] w[i][0, kTileCols) for r < Rows; w is read once per tile.
template <int Rows>
void directTile(const float* x, Index x_stride, const float* w, Index w_stride, Index inner,
                float* out, Index out_stride)
{
    using namespace Eigen::internal;
    Packet acc[Rows][kTilePackets];
    for (int r = 0; r < Rows; ++r)
        for (int p = 0; p < kTilePackets; ++p)
            acc[r][p] = pset1<Packet>(0.0f);
    for (Index i = 0; i < inner; ++i) {
        const float* w_row = w + i * w_stride;
        Packet w_packets[kTilePackets];
        for (int p = 0; p < kTilePackets; ++p) {
            __builtin_prefetch(w_row + kPrefetchRows * w_stride + p * kPacket);
            w_packets[p] = ploadu<Packet>(w_row + p * kPacket);
        }
        for (int r = 0; r < Rows; ++r) {
            const Packet x_ri = pset1<Packet>(x[r * x_stride + i]);
            for (int p = 0; p < kTilePackets; ++p)
                acc[r][p] = pmadd(x_ri, w_packets[p], acc[r][p]);
        }
    }
    for (int r = 0; r < Rows; ++r)
        for (int p = 0; p < kTilePackets; ++p)
            pstoreu(out + r * out_stride + p * kPacket, acc[r][p]);
}

template <int Rows>
void directTileRows(int rows, const float* x, Index x_stride, const float* w, Index w_stride,
                    Index inner, float* out, Index out_stride)
{
    if constexpr (Rows > 1) {
        if (rows < Rows)
            return directTileRows<Rows - 1>(rows, x, x_stride, w, w_stride, inner, out, out_stride);
    }
    directTile<Rows>(x, x_stride, w, w_stride, inner, out, out_stride);
}

}  // namespace

Index directProductTiles(const ConstBlockRef& x, const ConstBlockRef& w, BlockRef out)
{
    const Index rows = x.rows();
    const Index tiled_cols = w.cols() / kTileCols * kTileCols;
    for (Index col = 0; col < tiled_cols; col += kTileCols) {
        for (Index row = 0; row < rows; row += kTileRows) {
            const int tile_rows = int(std::min<Index>(kTileRows, rows - row));
            directTileRows<kTileRows>(tile_rows, x.data() + row * x.outerStride(), x.outerStride(),
                                      w.data() + col, w.outerStride(), x.cols(),
                                      out.data() + row * out.outerStride() + col, out.outerStride());
        }
    }
    return tiled_cols;
}

void directProduct(const ConstBlockRef& x, const ConstBlockRef& w, BlockRef out)
{
    const Index done = directProductTiles(x, w, out);
    if (done < w.cols())
        out.rightCols(w.cols() - done).noalias() = x * w.rightCols(w.cols() - done);
}

bool linearColumns(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out)
{
    // Chunks of columns handed out one at a time, so that a thread that the machine's other
    // processes hold up leaves only its current chunk to wait for. Direct-kernel chunks are two
    // tiles wide; Eigen's product repacks all of x for every call, so it gets one chunk per thread.
    const Index threads = omp_get_num_threads();
    const Index cols = w.cols();
    const Index chunk_cols = x.rows() <= kDirectRows
        ? 2 * kTileCols
        : ((cols + threads - 1) / threads + kPacket - 1) / kPacket * kPacket;
    const Index chunks = (cols + chunk_cols - 1) / chunk_cols;
    bool finite = true;

#pragma omp for schedule(dynamic, 1) nowait
    for (Index chunk = 0; chunk < chunks; ++chunk) {
        const Index first = chunk * chunk_cols;
        const Index count = std::min(chunk_cols, cols - first);
        const auto w_slice = w.middleCols(first, count);  // (inner, count)
        const auto bias_slice = Eigen::Map<const RowVector>(bias ? bias + first : nullptr, bias ? count : 0);
        if (!allFinite(w_slice) || !allFinite(bias_slice)) {
            finite = false;
            continue;
        }
        auto out_slice = out.middleCols(first, count);  // (rows, count)
        if (x.rows() <= kDirectRows)
            directProduct(x, w_slice, out_slice);
        else
            out_slice.noalias() = x * w_slice;
        if (bias)
            out_slice.rowwise() += bias_slice;
    }
    return finite;
}

}  // namespace attn
