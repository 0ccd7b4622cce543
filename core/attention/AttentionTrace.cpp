#include "core/attention/AttentionTrace.h"

#include <limits>

namespace attn {

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
