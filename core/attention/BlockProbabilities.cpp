#include "core/attention/BlockProbabilities.h"

#include "core/attention/MaskedSoftmax.h"

#include <algorithm>

namespace attn {

int keysOfBlock(const AttentionTrace& trace, int first, int rows)
{
    return trace.causal ? std::min(trace.keyLength(), trace.query_offset + first + rows) : trace.keyLength();
}

void blockProbabilities(const AttentionTrace& trace, const Matrix& keys_t, int head, int first, int rows, BlockRef w)
{
    const int head_dim = trace.head_dim;
    const int keys = keysOfBlock(trace, first, rows);
    const auto q_h = trace.qHead(head).middleRows(first, rows);                       // (rows, head_dim)
    const auto k_g_t = keys_t.middleRows(trace.kvHeadOf(head) * head_dim, head_dim);  // (head_dim, key_len)
    directProduct(q_h, k_g_t.leftCols(keys), w.leftCols(keys));                       // scores = Q_h K_g^T
    maskedSoftmax(w, trace.query_offset + first, trace.causal, trace.key_padding, 1.0f / trace.scale,
                  trace.sliding_window);
}

}  // namespace attn
