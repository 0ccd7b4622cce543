#include "core/ops/Linear.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace attn {
namespace {

// Below this many multiply-adds the product runs on one thread (the engine's threshold: a
// parallel region costs more than it saves on a product of about 20 us).
constexpr std::int64_t kParallelWork = std::int64_t(1) << 21;

// Up to this many rows of x the direct kernel beats Eigen's packed product, as in linearColumns.
// Measured on GPT-2's products at 1024 rows, 1 thread, CPU time: 180-220 GFLOP/s against Eigen's
// 150-160 (model_bench linear rows).
constexpr Eigen::Index kDirectRows = 1024;
constexpr Eigen::Index kPacket = Eigen::internal::packet_traits<float>::size;
constexpr Eigen::Index kChunkCols = 6 * kPacket;  // two of the direct kernel's 3-packet tiles

}  // namespace

bool linear(const ConstBlockRef& x, const ConstBlockRef& w, const float* bias, BlockRef out, bool check_finite)
{
    const Eigen::Index cols = w.cols();
    const auto bias_row = Eigen::Map<const RowVector>(bias, bias ? cols : 0);  // (cols)
    if (check_finite && (!allFinite(w) || !allFinite(bias_row)))
        return false;

    const std::int64_t work = std::int64_t(x.rows()) * w.rows() * cols;
    const bool direct = x.rows() <= kDirectRows;
    // The direct kernel reads x packed in tiles of rows (packRowTiles), packed once for every
    // column chunk, in a buffer kept for the next call of this thread.
    const bool packed = direct && cols >= 3 * kPacket;
    thread_local std::vector<float> packed_x;  // (tiles, inner, kPackedTileRows)
    if (packed)
        packed_x.resize(size_t(packedTiles(x.rows()) * x.cols() * kPackedTileRows));
    float* const packed_data = packed_x.data();
#pragma omp parallel if (work >= kParallelWork)
    {
        if (packed) {
#pragma omp for schedule(static)
            for (Eigen::Index tile = 0; tile < packedTiles(x.rows()); ++tile)
                packRowTiles(x, tile, tile + 1, packed_data);
        }
        // Direct-kernel chunks are two tiles wide, handed out one at a time (a thread the other
        // processes hold up leaves only its current chunk to wait for); Eigen's product packs all
        // of x on every call, so it gets one chunk per thread.
        const Eigen::Index threads = omp_get_num_threads();
        const Eigen::Index chunk_cols =
            direct ? kChunkCols : ((cols + threads - 1) / threads + kPacket - 1) / kPacket * kPacket;
        const Eigen::Index chunks = (cols + chunk_cols - 1) / chunk_cols;
#pragma omp for schedule(dynamic, 1)
        for (Eigen::Index chunk = 0; chunk < chunks; ++chunk) {
            const Eigen::Index first = chunk * chunk_cols;
            const Eigen::Index count = std::min(chunk_cols, cols - first);
            auto out_slice = out.middleCols(first, count);  // (rows, count)
            if (packed) {
                const Eigen::Index done = directPackedProduct(packed_data, x.rows(), w.middleCols(first, count), out_slice);
                if (done < count)
                    directProduct(x, w.middleCols(first + done, count - done), out_slice.rightCols(count - done));
            } else if (direct)
                directProduct(x, w.middleCols(first, count), out_slice);
            else
                out_slice.noalias() = x * w.middleCols(first, count);
            if (bias)
                out_slice.rowwise() += bias_row.segment(first, count);
        }
    }
    return true;
}

}  // namespace attn
