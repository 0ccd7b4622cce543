#pragma once

#include "core/base/Tensor.h"

#include <cstdint>

namespace attn {

// The keys and values one attention layer has computed for the tokens before the current ones
// (after any position rotation, with grouped-query attention's num_kv_heads heads), so that a
// causal pass over the same tokens and more computes only the new tokens' projections.
// AttentionEngine::forwardAppending appends to it.
struct KeyValueCache {
    Matrix k;  // (cached_len, kv_dim)
    Matrix v;  // (cached_len, kv_dim)

    int length() const { return int(k.rows()); }
    std::int64_t bytes() const { return std::int64_t(k.size() + v.size()) * std::int64_t(sizeof(float)); }

    // Keeps the first `length` tokens' keys and values (length <= length()).
    void truncate(int length)
    {
        k.conservativeResize(length, k.cols());
        v.conservativeResize(length, v.cols());
    }
    void append(const Matrix& k_new, const Matrix& v_new)  // (new_len, kv_dim) each
    {
        const Eigen::Index old_len = k.rows();
        k.conservativeResize(old_len + k_new.rows(), k_new.cols());
        v.conservativeResize(old_len + v_new.rows(), v_new.cols());
        k.bottomRows(k_new.rows()) = k_new;
        v.bottomRows(v_new.rows()) = v_new;
    }
};

}  // namespace attn
