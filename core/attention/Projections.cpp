#include "core/attention/Projections.h"

#include "core/ops/Linear.h"
#include "core/ops/LinearColumns.h"
#include "core/ops/ParallelWork.h"

#include <atomic>
#include <cstdint>

namespace attn {

bool projectQueriesKeysValues(const Matrix& x_query, const Matrix& x_key, const Matrix& x_value,
                              const AttentionWeights& weights, Matrix& q, Matrix& k, Matrix& v, bool check_finite)
{
    const int d_model = weights.dModel();
    const int kv_dim = weights.kvDim();
    const int input_dim = weights.inputDim();
    // in_bias = [bq | bk | bv]: (d_model), then (kv_dim) twice.
    const float* bias = weights.hasInputBias() ? weights.in_bias.data() : nullptr;
    const float* bias_q = bias;
    const float* bias_k = bias ? bias + d_model : nullptr;
    const float* bias_v = bias ? bias + d_model + kv_dim : nullptr;

    q.resize(x_query.rows(), d_model);  // (query_len, d_model)
    k.resize(x_key.rows(), kv_dim);     // (key_len, kv_dim)
    v.resize(x_value.rows(), kv_dim);   // (key_len, kv_dim)

    if (!check_finite) {  // the same products, without the scan of the weights
        linear(x_query, weights.wq(), bias_q, q, false);
        linear(x_key, weights.wk(), bias_k, k, false);
        linear(x_value, weights.wv(), bias_v, v, false);
        return true;
    }
    // Multiply-adds, plus one for each weight scanned.
    const std::int64_t projection_work =
        (std::int64_t(x_query.rows() + 1) * d_model + std::int64_t(x_key.rows() + x_value.rows() + 2) * kv_dim) *
        input_dim;
    std::atomic<bool> finite = true;
#pragma omp parallel if (projection_work >= kParallelWork)
    {
        const bool q_ok = linearColumns(x_query, weights.wq(), bias_q, q);
        const bool k_ok = linearColumns(x_key, weights.wk(), bias_k, k);
        const bool v_ok = linearColumns(x_value, weights.wv(), bias_v, v);
        if (!(q_ok && k_ok && v_ok))
            finite.store(false, std::memory_order_relaxed);
    }
    return finite;
}

bool projectOutput(const Matrix& concat, const AttentionWeights& weights, Matrix& output, bool check_finite)
{
    if (!weights.hasOutputProjection()) {
        output = concat;
        // An output bias without Wo is not added, but it is still part of the weights' check.
        return allFinite(weights.out_bias);
    }
    output.resize(concat.rows(), weights.outputDim());  // (query_len, output_dim)
    const float* out_bias = weights.out_bias.size() > 0 ? weights.out_bias.data() : nullptr;
    if (!check_finite)
        return linear(concat, weights.out_proj, out_bias, output, false);
    const std::int64_t output_work = std::int64_t(concat.rows() + 1) * concat.cols() * weights.outputDim();
    std::atomic<bool> finite = true;
#pragma omp parallel if (output_work >= kParallelWork)
    if (!linearColumns(concat, weights.out_proj, out_bias, output))
        finite.store(false, std::memory_order_relaxed);
    return finite;
}

}  // namespace attn
