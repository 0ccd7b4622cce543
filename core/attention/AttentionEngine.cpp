#include "core/attention/AttentionEngine.h"

#include "core/attention/HeadAttention.h"
#include "core/attention/Projections.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace attn {
namespace {

constexpr std::int64_t kMaxAttentionFloats = std::int64_t(1) << 30;  // 4 GiB of weights (+ scores)

Status checkInput(const char* what, const Matrix& x, int input_dim)
{
    if (x.cols() != input_dim)
        return Error{QStringLiteral("the %1 rows have %2 columns, the weights expect input dimension %3")
                         .arg(QLatin1String(what))
                         .arg(x.cols())
                         .arg(input_dim)};
    if (!allFinite(x))
        return Error{QStringLiteral("the %1 contains NaN or infinite values").arg(QLatin1String(what))};
    return {};
}

// The weights' shapes, then the inputs. The weights' finiteness is checked slice by slice during
// the projections, where each thread reads its slice anyway; when the inputs are refused, a fault
// in the weights is still reported first, as weights.validate() would.
Status checkPass(const Matrix& x_query, const Matrix& x_key, const Matrix& x_value, const AttentionWeights& weights,
                 const AttentionOptions& options)
{
    if (Status status = weights.validateShapes(); !status)
        return status;
    const auto refuse = [&weights](const Status& status) -> Status {
        if (Status own = weights.validate(); !own)
            return own;
        return status;
    };
    for (auto [what, x] : {std::pair{"query input", &x_query}, {"key input", &x_key}, {"value input", &x_value}})
        if (Status status = checkInput(what, *x, weights.inputDim()); !status)
            return refuse(status);
    const int key_len = int(x_key.rows());
    if (x_value.rows() != key_len)
        return refuse(Error{QStringLiteral("keys (%1 rows) and values (%2 rows) must have the same length")
                                .arg(key_len)
                                .arg(x_value.rows())});
    if (!options.key_padding.empty() && int(options.key_padding.size()) != key_len)
        return refuse(Error{QStringLiteral("the key padding mask has %1 entries for %2 keys")
                                .arg(options.key_padding.size())
                                .arg(key_len)});
    if (options.sliding_window < 0)
        return refuse(
            Error{QStringLiteral("the sliding window must not be negative, got %1").arg(options.sliding_window)});
    // A long input's pass keeps one head's weights, and one recomputed head at a time.
    const int stored_heads = options.block_factor > 0 ? std::min(weights.num_heads, 2) : weights.num_heads;
    if (options.block_factor < 0)
        return refuse(Error{QStringLiteral("a long input's blocks must not be negative, got %1 cells a side")
                                .arg(options.block_factor)});
    if (options.block_factor > 0 && (options.kept_head < 0 || options.kept_head >= weights.num_heads))
        return refuse(Error{QStringLiteral("head %1 to keep is outside the %2 heads (0 to %3)")
                                .arg(options.kept_head)
                                .arg(weights.num_heads)
                                .arg(weights.num_heads - 1)});
    if (Status status = AttentionEngine::checkSize(int(x_query.rows()), key_len, stored_heads,
                                                   options.block_factor > 0 ? TraceDetail::Probabilities : options.detail);
        !status)
        return refuse(status);
    return {};
}

// After a projection came out not finite: validate() names the weights' fault; finite weights and
// inputs whose product still overflowed float32 are too large.
Error weightsFault(const AttentionWeights& weights)
{
    const Status own = weights.validate();
    return Error{own ? QStringLiteral("the projections overflow float32: the inputs or the weights are too large")
                     : own.error()};
}

// Q and K rotated in place by the options' position rotation, if any, row 0 at first_position.
void rotatePositions(const PositionRotation& rotate, int num_heads, int num_kv_heads, int head_dim, int first_position,
                     Matrix& q, Matrix& k)
{
    if (!rotate)
        return;
    rotate(q, num_heads, head_dim, first_position, RotatedProjection::Queries);
    rotate(k, num_kv_heads, head_dim, first_position, RotatedProjection::Keys);
}

// The trace's header: heads, scale and masks, before anything is computed.
AttentionTrace emptyTrace(const AttentionWeights& weights, const AttentionOptions& options)
{
    AttentionTrace trace;
    trace.num_heads = weights.num_heads;
    trace.num_kv_heads = weights.kvHeads();
    trace.head_dim = weights.headDim();
    trace.scale = float(options.scale.divisor(trace.head_dim));
    trace.causal = options.causal;
    trace.sliding_window = options.causal ? options.sliding_window : 0;
    trace.key_padding = options.key_padding;
    return trace;
}

// forwardAppending's checks: the weights' shapes, the new rows, the cache's width, the padding
// and the size, before anything is allocated.
Status checkAppending(const Matrix& x_new, const AttentionWeights& weights, const AttentionOptions& options,
                      const KeyValueCache& cache)
{
    if (Status status = weights.validateShapes(); !status)
        return status;
    if (Status status = checkInput("new rows", x_new, weights.inputDim()); !status)
        return status;
    if (cache.length() > 0 &&
        (cache.k.cols() != weights.kvDim() || cache.v.cols() != weights.kvDim() || cache.v.rows() != cache.k.rows()))
        return Error{QStringLiteral("the cached keys (%1 x %2) and values (%3 x %4) do not fit these weights "
                                    "(key/value width %5)")
                         .arg(cache.k.rows())
                         .arg(cache.k.cols())
                         .arg(cache.v.rows())
                         .arg(cache.v.cols())
                         .arg(weights.kvDim())};
    const int key_len = cache.length() + int(x_new.rows());
    if (!options.key_padding.empty() && int(options.key_padding.size()) != key_len)
        return Error{QStringLiteral("the key padding mask has %1 entries for %2 keys")
                         .arg(options.key_padding.size())
                         .arg(key_len)};
    return AttentionEngine::checkSize(int(x_new.rows()), key_len, weights.num_heads, options.detail);
}

}  // namespace

Status AttentionEngine::checkSize(int query_len, int key_len, int num_heads, TraceDetail detail)
{
    const std::int64_t per_matrix = std::int64_t(query_len) * key_len * num_heads;
    const std::int64_t floats = detail == TraceDetail::Full ? 2 * per_matrix : per_matrix;
    if (floats > kMaxAttentionFloats)
        return Error{QStringLiteral("%1 tokens x %2 keys x %3 heads is too large to compute (limit %4 weights)")
                         .arg(query_len)
                         .arg(key_len)
                         .arg(num_heads)
                         .arg(kMaxAttentionFloats)};
    return {};
}

Result<AttentionTrace> AttentionEngine::forward(const Matrix& x, const AttentionWeights& weights,
                                                const AttentionOptions& options)
{
    return forward(x, x, x, weights, options);
}

Result<AttentionTrace> AttentionEngine::forward(const Matrix& x_query, const Matrix& x_key, const Matrix& x_value,
                                                const AttentionWeights& weights, const AttentionOptions& options)
{
    if (Status status = checkPass(x_query, x_key, x_value, weights, options); !status)
        return Error{status.error()};

    AttentionTrace trace = emptyTrace(weights, options);

    // Q = X_query Wq + bq,  K = X_key Wk + bk,  V = X_value Wv + bv
    if (!projectQueriesKeysValues(x_query, x_key, x_value, weights, trace.q, trace.k, trace.v,
                                  !options.weights_validated))
        return weightsFault(weights);
    // Q, K = rotate(Q), rotate(K)   (RoPE; nothing without a rotation)
    rotatePositions(options.rotate_positions, trace.num_heads, trace.num_kv_heads, trace.head_dim, 0, trace.q, trace.k);
    // per head h, with key/value head g = h / (num_heads / num_kv_heads):
    //   P_h = softmax(mask(Q_h K_g^T) / scale),  head_h = P_h V_g
    // (a long input: head kept_head's probabilities kept, every head reduced to its cell blocks)
    attendHeads(trace, options.detail == TraceDetail::Full, options.block_factor, options.kept_head);
    if (options.edit_head_outputs)
        options.edit_head_outputs(trace.concat);
    // output = concat(head_1 ... head_H) Wo + bo
    if (!projectOutput(trace.concat, weights, trace.output, !options.weights_validated))
        return weightsFault(weights);
    return trace;
}

Result<AttentionTrace> AttentionEngine::forwardAppending(const Matrix& x_new, const AttentionWeights& weights,
                                                         const AttentionOptions& options, KeyValueCache& cache)
{
    if (Status status = checkAppending(x_new, weights, options, cache); !status)
        return Error{status.error()};

    AttentionTrace trace = emptyTrace(weights, options);
    trace.query_offset = cache.length();

    // Q_new, K_new, V_new = X_new [Wq | Wk | Wv] + [bq | bk | bv]   (new_len rows)
    Matrix k_new;  // (new_len, kv_dim)
    Matrix v_new;  // (new_len, kv_dim)
    if (!projectQueriesKeysValues(x_new, x_new, x_new, weights, trace.q, k_new, v_new, !options.weights_validated))
        return weightsFault(weights);
    // rotated from the first new position, as a whole pass would rotate these rows
    rotatePositions(options.rotate_positions, trace.num_heads, trace.num_kv_heads, trace.head_dim, trace.query_offset,
                    trace.q, k_new);
    // K = [K_cached; K_new],  V = [V_cached; V_new]
    cache.append(k_new, v_new);
    trace.k = cache.k;  // (key_len, kv_dim)
    trace.v = cache.v;  // (key_len, kv_dim)
    // per head: weights_h = softmax(mask(Q_h K_g^T) / scale) for the new queries, head_h = weights_h V_g
    attendHeads(trace, options.detail == TraceDetail::Full);
    // output = concat(head_1 ... head_H) Wo + bo
    if (!projectOutput(trace.concat, weights, trace.output, !options.weights_validated)) {
        cache.truncate(trace.query_offset);  // as it was: the new rows were never a result
        return weightsFault(weights);
    }
    return trace;
}

}  // namespace attn
