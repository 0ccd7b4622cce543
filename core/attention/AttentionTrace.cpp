#include "core/attention/AttentionTrace.h"

#include "core/attention/HeadAttention.h"


#include <limits>

namespace attn {

std::shared_ptr<const Matrix> AttentionTrace::headProbabilities(int head) const
{
    if (head < 0 || head >= int(probabilities.size()))
        return {};
    if (keepsEveryHead() || head == kept_head)
        return std::shared_ptr<const Matrix>(std::shared_ptr<const Matrix>(), &probabilities[size_t(head)]);
    if (!recomputed)  // a trace assembled by hand: nothing to recompute from
        return {};
    std::lock_guard lock(recomputed->mutex);
    if (recomputed->head != head || !recomputed->probabilities) {
        recomputed->probabilities.reset();  // freed before the next one is made
        recomputed->probabilities = std::make_shared<const Matrix>(recomputeHeadProbabilities(*this, head));
        recomputed->head = head;
    }
    return recomputed->probabilities;
}

bool AttentionTrace::isMasked(int query, int key) const
{
    if (causal && key > query_offset + query)
        return true;
    if (causal && sliding_window > 0 && query_offset + query - key >= sliding_window)
        return true;
    return !key_padding.empty() && key_padding[size_t(key)];
}

float AttentionTrace::scaledScore(int head, int query, int key) const
{
    return scores[size_t(head)](query, key) / scale;
}

float AttentionTrace::maskedScore(int head, int query, int key) const
{
    return isMasked(query, key) ? -std::numeric_limits<float>::infinity() : scaledScore(head, query, key);
}

}  // namespace attn
