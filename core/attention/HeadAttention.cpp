#include "core/attention/HeadAttention.h"

#include "core/attention/MaskedSoftmax.h"
#include "core/attention/ParallelWork.h"
#include "core/ops/LinearColumns.h"

#include <algorithm>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace attn {
namespace {

// Rows of one head's score matrix handled as one task: small enough that the tasks of a causal
// pass (whose later blocks see more keys) balance across cores, large enough for an efficient GEMM.
constexpr int kQueryBlock = 64;

// Asks the kernel to back a large matrix with 2 MiB pages before it is first written: at
// 2048 tokens the 8 heads' weights are 128 MiB of fresh memory, and faulting it in as 4 KiB pages
// cost 60 ms of CPU per pass on the 2-core VM we measure on (24 ms as 2 MiB pages). Only the whole
// 2 MiB pages inside the matrix are advised; it is a hint, and without Linux it does nothing.
void adviseHugePages(Matrix& m)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
    const auto begin = (reinterpret_cast<std::uintptr_t>(m.data()) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(m.data() + m.size()) & ~(kHugePage - 1);
    if (end > begin)
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    Q_UNUSED(m);
#endif
}

// num_heads matrices of (query_len, key_len), each entry to be written by attendHeads.
void allocateHeadMatrices(std::vector<Matrix>& matrices, int num_heads, int query_len, int key_len)
{
    matrices.resize(size_t(num_heads));
    for (Matrix& m : matrices) {
        m.resize(query_len, key_len);  // (query_len, key_len)
        adviseHugePages(m);
    }
}

// scores = Q_h K_g^T: q_h (rows, head_dim), k_g_t (head_dim, keys), scores (rows, keys).
void rawScores(const ConstBlockRef& q_h, const ConstBlockRef& k_g_t, BlockRef scores)
{
    directProduct(q_h, k_g_t, scores);
}

// output = weights V_g: weights (rows, keys), v_g (keys, head_dim), output (rows, head_dim).
void weightedValues(const ConstBlockRef& weights, const ConstBlockRef& v_g, BlockRef output)
{
    directProduct(weights, v_g, output);
}

}  // namespace

void attendHeads(AttentionTrace& trace, bool keep_scores)
{
    const int num_heads = trace.num_heads;
    const int num_kv_heads = trace.kvHeads();
    const int head_dim = trace.head_dim;
    const int query_len = trace.queryLength();
    const int key_len = trace.keyLength();
    const bool causal = trace.causal;
    const int query_offset = trace.query_offset;  // keys before the first query (a cache's)

    allocateHeadMatrices(trace.weights, num_heads, query_len, key_len);
    if (keep_scores)
        allocateHeadMatrices(trace.scores, num_heads, query_len, key_len);
    trace.concat.resize(query_len, num_heads * head_dim);  // (query_len, d_model)

    // Every block of a head reads all of K_g^T and V_g, row by row (directProduct reads its
    // right-hand side in place): K_g^T is materialised once per key/value head, and V_g's rows made
    // contiguous rather than kv_dim floats apart (together a fifth faster at T=2048).
    Matrix keys_t(num_kv_heads * head_dim, key_len);  // rows [g * head_dim, (g+1) * head_dim) hold K_g^T
    Matrix values(num_kv_heads * key_len, head_dim);  // rows [g * key_len, (g+1) * key_len) hold V_g
    const float inv_scale = 1.0f / trace.scale;
    const int blocks = (query_len + kQueryBlock - 1) / kQueryBlock;
    const std::int64_t attention_work = std::int64_t(num_heads) * query_len * key_len * head_dim;

#pragma omp parallel if (attention_work >= kParallelWork)
    {
#pragma omp for schedule(static)
        for (int kv_head = 0; kv_head < num_kv_heads; ++kv_head) {
            keys_t.middleRows(kv_head * head_dim, head_dim) =
                trace.k.middleCols(kv_head * head_dim, head_dim).transpose();
            values.middleRows(kv_head * key_len, key_len) = trace.v.middleCols(kv_head * head_dim, head_dim);
        }

#pragma omp for schedule(dynamic, 1)
        for (int task = 0; task < num_heads * blocks; ++task) {
            const int head = task / blocks;
            const int kv_head = trace.kvHeadOf(head);
            const int first = (task % blocks) * kQueryBlock;
            const int rows = std::min(kQueryBlock, query_len - first);
            const int keys = causal ? std::min(key_len, query_offset + first + rows) : key_len;

            const auto q_h = trace.qHead(head).middleRows(first, rows);          // (rows, head_dim)
            const auto k_g_t = keys_t.middleRows(kv_head * head_dim, head_dim);  // (head_dim, key_len)
            const auto v_g = values.middleRows(kv_head * key_len, key_len);      // (key_len, head_dim)
            auto w = trace.weights[size_t(head)].middleRows(first, rows);        // (rows, key_len)

            // scores = Q_h K_g^T, into w (and kept in s for the walkthrough)
            if (keep_scores) {
                auto s = trace.scores[size_t(head)].middleRows(first, rows);  // (rows, key_len)
                rawScores(q_h, k_g_t, s);
                w.leftCols(keys) = s.leftCols(keys);
            } else {
                rawScores(q_h, k_g_t.leftCols(keys), w.leftCols(keys));
            }
            // weights = softmax(mask(scores) / scale)
            maskedSoftmax(w, query_offset + first, causal, trace.key_padding, inv_scale, trace.sliding_window);
            // head output = weights V_g
            weightedValues(w.leftCols(keys), v_g.topRows(keys),
                           trace.concat.block(first, head * head_dim, rows, head_dim));
        }
    }
}

}  // namespace attn
