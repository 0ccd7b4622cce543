#include "core/ops/LinearColumns.h"

#include "core/ops/Transpose.h"

#include <algorithm>
#include <type_traits>

#include <omp.h>

namespace attn {
namespace {

using Index = Eigen::Index;
using Packet = Eigen::internal::packet_traits<float>::type;  // 16 floats with AVX-512, 8 with AVX
constexpr Index kPacket = Eigen::internal::packet_traits<float>::size;

// The direct kernel's register tiles: Rows rows of x times Packets packets of columns, with
// about 3/4 of the vector registers as accumulators (8 x 3 or 6 x 4 of AVX-512's 32 registers),
// but never more than 8 rows. Each row of x is a stream of its own, and rows a power of two of
// bytes apart (the attention weights at 2048 keys: 8 KiB) share the same few L1 cache sets:
// 24 such rows evict each other, which ruined weights x V at head_dim 16 (one packet of columns:
// 64 x 2048 times 2048 x 16) with 24 x 1 tiles; 8 x 1 tiles keep their rows in L1.
constexpr int kAccumulators = EIGEN_ARCH_DEFAULT_NUMBER_OF_REGISTERS * 3 / 4;
constexpr int kMaxTileRows = 8;
template <int Packets>
constexpr int kTileRows = std::min(kAccumulators / Packets, kMaxTileRows);
constexpr Index kMinBlockRows = 64;

// Rows ahead of the current one to prefetch: the rows of a column slice of w lie a whole row of
// w apart (6 KiB for d_model 512), too far for the hardware prefetcher to follow.
constexpr Index kPrefetchRows = 12;

// out[r][0, Packets * kPacket) = sum_i x[r][i] w[i][0, Packets * kPacket) for r < Rows, with the
// sums in registers and each row of the w strip loaded once for all Rows rows. With `accumulate`
// the sums continue from out's values (a later block of the inner dimension: the same additions
// in the same order as one pass over all of it).
template <int Rows, int Packets>
void directTile(const float* x, Index x_stride, const float* w, Index w_stride, Index inner, float* out,
                Index out_stride, bool accumulate)
{
    using namespace Eigen::internal;
    Packet acc[Rows][Packets];
    for (int r = 0; r < Rows; ++r)
        for (int p = 0; p < Packets; ++p)
            acc[r][p] = accumulate ? ploadu<Packet>(out + r * out_stride + p * kPacket) : pset1<Packet>(0.0f);
    for (Index i = 0; i < inner; ++i) {
        const float* w_row = w + i * w_stride;
        Packet w_packets[Packets];
        for (int p = 0; p < Packets; ++p) {
            __builtin_prefetch(w_row + kPrefetchRows * w_stride + p * kPacket);
            w_packets[p] = ploadu<Packet>(w_row + p * kPacket);
        }
        for (int r = 0; r < Rows; ++r) {
            const Packet x_ri = pset1<Packet>(x[r * x_stride + i]);
            for (int p = 0; p < Packets; ++p)
                acc[r][p] = pmadd(x_ri, w_packets[p], acc[r][p]);
        }
    }
    for (int r = 0; r < Rows; ++r)
        for (int p = 0; p < Packets; ++p)
            pstoreu(out + r * out_stride + p * kPacket, acc[r][p]);
}

// directTile with a row count known only at run time (the last, shorter tile of a strip).
template <int Rows, int Packets>
void directTileRows(int rows, const float* x, Index x_stride, const float* w, Index w_stride, Index inner, float* out,
                    Index out_stride, bool accumulate = false)
{
    if constexpr (Rows > 1) {
        if (rows < Rows)
            return directTileRows<Rows - 1, Packets>(rows, x, x_stride, w, w_stride, inner, out, out_stride,
                                                     accumulate);
    }
    directTile<Rows, Packets>(x, x_stride, w, w_stride, inner, out, out_stride, accumulate);
}

// From this many tiles of rows on, a strip of w is copied, a block of its rows at a time, into a
// contiguous panel that stays in L1 while every tile of rows goes through it. In place, the rows of
// a strip lie a whole row of w apart and each tile streams the whole strip again from L2; at 3072
// columns (12 KiB, a multiple of 4 KiB) all those rows also fall into the same L1 set. From 16
// tiles on (256 rows) the copy pays for itself, GPT-2's 768 x 3072 product included.
constexpr Index kPackedTiles = 16;
// From this many when the rows of w are a multiple of 4 KiB apart (the set-conflict case, GPT-2's
// 3072 columns): there the copy already pays at 64 rows; other shapes at 64 rows lose more to the
// copy than they gain.
constexpr Index kPackedTilesSameSet = 8;
// With x packed, whether a strip of w is better copied into panels (that stay in L1 while every
// tile of rows goes through them) or read in place by each tile depends on the processor
// (docs/speed-log.md has the measurements):
// - Intel (the AVX-512 Xeon): panels from two tiles of rows on; in place, each tile streams the
//   strip from L2 again, and panels won from 64 rows on.
// - AMD (Zen 4): in place at every size, inner blocks included, and without software prefetches,
//   which the hardware prefetcher makes redundant. Copying a panel costs a store per load, and a
//   64-byte store takes two of this core's cycles.
constexpr Index kPackedXPanelTiles = 2;
StripReading strip_reading = StripReading::ForThisProcessor;
bool stripsInPlace()
{
    if (strip_reading != StripReading::ForThisProcessor)
        return strip_reading == StripReading::InPlace;
#if defined(__x86_64__) || defined(__i386__)
    static const bool amd = __builtin_cpu_is("amd");
    return amd;
#else
    return false;
#endif
}
// Rows of w per panel: 128 x 48 floats = 24 KiB, half of a 48 KiB L1, the rest for the rows of x.
constexpr Index kPanelRows = 128;

// The rows [first, first + count) of the strip w x [col, col + Packets * kPacket), one after
// another into panel.
template <int Packets>
void packPanel(const ConstBlockRef& w, Index first, Index count, Index col, float* panel)
{
    using namespace Eigen::internal;
    for (Index i = 0; i < count; ++i)
        for (int p = 0; p < Packets; ++p)
            pstore(panel + (i * Packets + p) * kPacket,
                   ploadu<Packet>(w.data() + (first + i) * w.outerStride() + col + p * kPacket));
}

// The columns [col, col + Packets * kPacket) of out = x w, all rows.
template <int Packets>
void directStrip(const ConstBlockRef& x, const ConstBlockRef& w, BlockRef out, Index col)
{
    constexpr int tile_rows = kTileRows<Packets>;
    const bool same_set = w.outerStride() * Index(sizeof(float)) % 4096 == 0;
    if (x.rows() < (same_set ? kPackedTilesSameSet : kPackedTiles) * tile_rows) {
        for (Index row = 0; row < x.rows(); row += tile_rows)
            directTileRows<tile_rows, Packets>(int(std::min<Index>(tile_rows, x.rows() - row)),
                                               x.data() + row * x.outerStride(), x.outerStride(), w.data() + col,
                                               w.outerStride(), x.cols(), out.data() + row * out.outerStride() + col,
                                               out.outerStride());
        return;
    }
    alignas(64) float panel[kPanelRows * Packets * kPacket];  // (kPanelRows, Packets * kPacket)
    for (Index first = 0; first < x.cols(); first += kPanelRows) {
        const Index count = std::min(kPanelRows, x.cols() - first);
        packPanel<Packets>(w, first, count, col, panel);
        for (Index row = 0; row < x.rows(); row += tile_rows)
            directTileRows<tile_rows, Packets>(int(std::min<Index>(tile_rows, x.rows() - row)),
                                               x.data() + row * x.outerStride() + first, x.outerStride(), panel,
                                               Packets * kPacket, count, out.data() + row * out.outerStride() + col,
                                               out.outerStride(), first > 0);
    }
}

// directTile with x packed (packRowTiles): kPackedTileRows rows, always all of them computed (a
// missing row is 0), `rows` of them stored.
template <int Packets, bool Prefetch>
void packedTile(const float* a, const float* w, Index w_stride, Index inner, float* out, Index out_stride, int rows,
                bool accumulate)
{
    using namespace Eigen::internal;
    constexpr int kRows = int(kPackedTileRows);
    Packet acc[kRows][Packets];
    for (int r = 0; r < kRows; ++r)
        for (int p = 0; p < Packets; ++p)
            acc[r][p] = accumulate && r < rows ? ploadu<Packet>(out + r * out_stride + p * kPacket) : pset1<Packet>(0.0f);
    for (Index i = 0; i < inner; ++i) {
        const float* w_row = w + i * w_stride;
        const float* a_i = a + i * kRows;
        Packet w_packets[Packets];
        for (int p = 0; p < Packets; ++p) {
            if constexpr (Prefetch)  // w in place on Intel: rows far apart; a panel is in L1 already
                __builtin_prefetch(w_row + kPrefetchRows * w_stride + p * kPacket);
            w_packets[p] = ploadu<Packet>(w_row + p * kPacket);
        }
        for (int r = 0; r < kRows; ++r) {
            const Packet x_ri = pset1<Packet>(a_i[r]);
            for (int p = 0; p < Packets; ++p)
                acc[r][p] = pmadd(x_ri, w_packets[p], acc[r][p]);
        }
    }
    for (int r = 0; r < rows; ++r)
        for (int p = 0; p < Packets; ++p)
            pstoreu(out + r * out_stride + p * kPacket, acc[r][p]);
}

// The columns [col, col + Packets * kPacket) of out = x w, x packed, all rows: as directStrip,
// over the rows [block.first, block.first + block.count) of w only.
template <int Packets>
void packedStrip(const float* packed, Index rows, const ConstBlockRef& w, BlockRef out, Index col, InnerBlock block)
{
    const Index inner = w.rows();
    const Index tiles = packedTiles(rows);
    const auto tile_rows = [rows](Index tile) { return int(std::min(kPackedTileRows, rows - tile * kPackedTileRows)); };
    const Index end = block.first + block.count;
    const auto in_place = [&](auto prefetch) {
        for (Index tile = 0; tile < tiles; ++tile)
            packedTile<Packets, prefetch()>(packed + (tile * inner + block.first) * kPackedTileRows,
                                            w.data() + block.first * w.outerStride() + col, w.outerStride(),
                                            block.count, out.data() + tile * kPackedTileRows * out.outerStride() + col,
                                            out.outerStride(), tile_rows(tile), block.accumulate);
    };
    if (stripsInPlace())
        return in_place(std::false_type{});
    if (tiles < kPackedXPanelTiles)
        return in_place(std::true_type{});
    alignas(64) float panel[kPanelRows * Packets * kPacket];  // (kPanelRows, Packets * kPacket)
    for (Index first = block.first; first < end; first += kPanelRows) {
        const Index count = std::min(kPanelRows, end - first);
        packPanel<Packets>(w, first, count, col, panel);
        for (Index tile = 0; tile < tiles; ++tile)
            packedTile<Packets, false>(packed + (tile * inner + first) * kPackedTileRows, panel, Packets * kPacket, count,
                                out.data() + tile * kPackedTileRows * out.outerStride() + col, out.outerStride(),
                                tile_rows(tile), first > block.first || block.accumulate);
    }
}

}  // namespace

Index kernelPacketFloats()
{
    return kPacket;
}

void setStripReading(StripReading reading)
{
    strip_reading = reading;
}

void directProduct(const ConstBlockRef& x, const ConstBlockRef& w, BlockRef out)
{
    const Index cols = w.cols();
    Index col = 0;
    if (cols % (4 * kPacket) == 0) {  // head_dim 64: whole 4-packet strips
        for (; col < cols; col += 4 * kPacket)
            directStrip<4>(x, w, out, col);
    }
    for (; col + 3 * kPacket <= cols; col += 3 * kPacket)
        directStrip<3>(x, w, out, col);
    if (col + 2 * kPacket <= cols) {  // 8 x 2 tiles: twice the multiply-adds per load of 8 x 1
        directStrip<2>(x, w, out, col);
        col += 2 * kPacket;
    }
    for (; col + kPacket <= cols; col += kPacket)
        directStrip<1>(x, w, out, col);
    // The last few columns, coefficient by coefficient: Eigen's lazy product never starts threads
    // of its own, which its blocked product would do when called outside a parallel region.
    if (col < cols)
        out.rightCols(cols - col).noalias() = x.lazyProduct(w.rightCols(cols - col));
}

void packRowTiles(const ConstBlockRef& x, Index first_tile, Index last_tile, float* packed)
{
    const Index inner = x.cols();
    for (Index tile = first_tile; tile < last_tile; ++tile) {
        float* out = packed + tile * inner * kPackedTileRows;  // (inner, kPackedTileRows)
        const Index first_row = tile * kPackedTileRows;
        const Index rows = std::min(kPackedTileRows, x.rows() - first_row);
        // A whole tile is transposed 8 x 8 blocks at a time in registers. Perf: packing was 3.9 %
        // of a BERT-base pass at T = 256 element by element.
        transposeInto(x.middleRows(first_row, rows),
                      Eigen::Map<Matrix, 0, Eigen::OuterStride<>>(out, inner, rows, Eigen::OuterStride<>(kPackedTileRows)));
        if (rows < kPackedTileRows)  // the missing rows of the last tile
            for (Index i = 0; i < inner; ++i)
                for (Index r = rows; r < kPackedTileRows; ++r)
                    out[i * kPackedTileRows + r] = 0.0f;
    }
}

Index directPackedProduct(const float* packed, Index rows, const ConstBlockRef& w, BlockRef out, InnerBlock block)
{
    if (block.count < 0)
        block.count = w.rows() - block.first;
    Index col = 0;
    for (; col + 3 * kPacket <= w.cols(); col += 3 * kPacket)
        packedStrip<3>(packed, rows, w, out, col, block);
    // The last one or two packets in narrower strips, still from packed x: a Qwen2 K or V
    // projection (896 -> 128) has a quarter of its columns there.
    if (col + 2 * kPacket <= w.cols()) {
        packedStrip<2>(packed, rows, w, out, col, block);
        col += 2 * kPacket;
    }
    if (col + kPacket <= w.cols()) {
        packedStrip<1>(packed, rows, w, out, col, block);
        col += kPacket;
    }
    return col;
}

bool linearColumns(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out)
{
    // Chunks of columns handed out one at a time, so that a thread that the machine's other
    // processes hold up leaves only its current chunk to wait for, two of the direct kernel's
    // tiles wide; more rows than kDirectRows go in blocks of rows, all chunks of one block before
    // the next.
    const Index cols = w.cols();
    const Index chunks = (cols + kChunkCols - 1) / kChunkCols;
    // Fewer chunks than twice the threads (a narrow w: d_model 64 is one chunk, which one thread
    // did alone) are shared out in blocks of rows as well, of at least kMinBlockRows, so that
    // every thread has work.
    const Index threads = omp_get_num_threads();
    const Index for_threads = std::min((2 * threads + chunks - 1) / chunks, x.rows() / kMinBlockRows);
    const Index wanted_blocks = std::max<Index>({1, (x.rows() + kDirectRows - 1) / kDirectRows, for_threads});
    const Index block_rows = std::max<Index>(1, (x.rows() + wanted_blocks - 1) / wanted_blocks);
    const Index row_blocks = std::max<Index>(1, (x.rows() + block_rows - 1) / block_rows);  // none empty
    bool finite = true;

#pragma omp for schedule(dynamic, 1) nowait
    for (Index task = 0; task < row_blocks * chunks; ++task) {
        const Index chunk = task % chunks;
        const Index first_row = task / chunks * block_rows;
        const Index rows = std::min(block_rows, x.rows() - first_row);
        const Index first = chunk * kChunkCols;
        const Index count = std::min(kChunkCols, cols - first);
        const auto w_slice = w.middleCols(first, count);  // (inner, count)
        const auto bias_slice = Eigen::Map<const RowVector>(bias ? bias + first : nullptr, bias ? count : 0);
        if (x.rows() == 0) {  // no product to look at
            finite = finite && allFinite(w_slice) && allFinite(bias_slice);
            continue;
        }
        auto out_slice = out.block(first_row, first, rows, count);  // (rows, count)
        directProduct(x.middleRows(first_row, rows), w_slice, out_slice);
        if (bias)
            out_slice.rowwise() += bias_slice;
        // x is finite, so a NaN or an infinity in column j of w or of the bias makes out[r][j]
        // NaN or infinite in every row r (0 * inf is NaN, inf - inf is NaN): the first row of the
        // slice, just written, answers for the whole slice of w, which a scan would read again (5 %
        // of a pass at T = 256, d_model 768). An overflowing product of finite weights shows the
        // same way, and is as unusable.
        if (!allFinite(out_slice.row(0)))
            finite = false;
    }
    return finite;
}

}  // namespace attn
