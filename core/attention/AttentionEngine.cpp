#include "core/attention/AttentionEngine.h"

#include "core/ops/LinearColumns.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace attn {
namespace {

constexpr std::int64_t kMaxAttentionFloats = std::int64_t(1) << 30;  // 4 GiB of weights (+ scores)

// Rows of one head's score matrix handled as one task: small enough that the tasks of a causal
// pass (whose later blocks see more keys) balance across cores, large enough for an efficient GEMM.
constexpr int kQueryBlock = 64;

// Below this many multiply-adds (about 20 us of one core) a step runs on one thread: a parallel
// region costs a few microseconds on an idle machine, and far more when the cores are shared and
// a thread of the team has to wait for its turn. (1 << 19 made the median pass at T=128,
// d_model 64 faster but the mean that QBENCHMARK reports slower: 0.246 -> 0.273 ms.)
constexpr std::int64_t kParallelWork = std::int64_t(1) << 21;

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

// Masks, then the softmax of (raw scores / scale) in place on one row of raw scores.
// Subtracting the row's maximum first keeps exp() from overflowing for large scores (dividing by
// the scale, a positive number, after the subtraction leaves the maximum where it is); masked keys
// are set to exactly 0 rather than exp(-inf), and a row with no visible key is all zeros.
void maskedSoftmax(Eigen::Ref<RowVector, 0, Eigen::InnerStride<1>> row, int visible_keys,
                   const std::vector<bool>& key_padding, float inv_scale)  // inv_scale = 1 / scale
{
    auto visible = row.head(visible_keys).array();
    row.tail(row.size() - visible_keys).setZero();
    if (!key_padding.empty()) {
        for (int j = 0; j < visible_keys; ++j)
            if (key_padding[size_t(j)])
                visible[j] = -std::numeric_limits<float>::infinity();
    }
    const float max = visible_keys > 0 ? visible.maxCoeff() : -std::numeric_limits<float>::infinity();
    if (!std::isfinite(max)) {
        visible.setZero();
        return;
    }
    visible = ((visible - max) * inv_scale).exp();
    // Eigen's vectorised exp() is not exactly 0 at -inf on every instruction set (a build without
    // -march=native gives ~1e-38): padded keys are set to exactly 0 again.
    if (!key_padding.empty()) {
        for (int j = 0; j < visible_keys; ++j)
            if (key_padding[size_t(j)])
                visible[j] = 0.0f;
    }
    visible *= 1.0f / visible.sum();
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
    // Dimensions, named once.
    const int num_heads = weights.num_heads;
    const int head_dim = weights.headDim();
    const int d_model = weights.dModel();
    const int input_dim = weights.inputDim();
    const int query_len = int(x_query.rows());
    const int key_len = int(x_key.rows());

    // The weights' shapes first; their finiteness is checked slice by slice during the projections,
    // where each thread reads its slice anyway. When the inputs are refused, a fault in the
    // weights is still reported first, as weights.validate() would.
    if (Status status = weights.validateShapes(); !status)
        return Error{status.error()};
    const auto refuse = [&weights](const Status& status) -> Result<AttentionTrace> {
        if (Status own = weights.validate(); !own)
            return Error{own.error()};
        return Error{status.error()};
    };
    for (auto [what, x] : {std::pair{"query input", &x_query}, {"key input", &x_key}, {"value input", &x_value}})
        if (Status status = checkInput(what, *x, input_dim); !status)
            return refuse(status);
    if (x_value.rows() != key_len)
        return refuse(Error{QStringLiteral("keys (%1 rows) and values (%2 rows) must have the same length")
                                .arg(key_len)
                                .arg(x_value.rows())});
    if (!options.key_padding.empty() && int(options.key_padding.size()) != key_len)
        return refuse(Error{QStringLiteral("the key padding mask has %1 entries for %2 keys")
                                .arg(options.key_padding.size())
                                .arg(key_len)});
    if (Status status = checkSize(query_len, key_len, num_heads, options.detail); !status)
        return refuse(status);
    // After a slice was found not finite: validate() names the fault.
    const auto refuseWeights = [&weights]() -> Result<AttentionTrace> {
        const Status own = weights.validate();
        return Error{own ? QStringLiteral("the weights contain NaN or infinite values") : own.error()};
    };

    AttentionTrace trace;
    trace.num_heads = num_heads;
    trace.head_dim = head_dim;
    trace.scale = float(options.scale.divisor(head_dim));
    trace.causal = options.causal;
    trace.key_padding = options.key_padding;

    // 1. Projections: Q = X_query Wq + bq, K = X_key Wk + bk, V = X_value Wv + bv, straight into
    //    the trace, the threads sharing out chunks of columns (see LinearColumns.h).
    const float* bias = weights.hasInputBias() ? weights.in_bias.data() : nullptr;
    trace.q.resize(query_len, d_model);  // (query_len, d_model)
    trace.k.resize(key_len, d_model);    // (key_len, d_model)
    trace.v.resize(key_len, d_model);    // (key_len, d_model)
    // Multiply-adds, plus one for each weight scanned.
    const std::int64_t projection_work = std::int64_t(query_len + 2 * key_len + 3) * input_dim * d_model;
    std::atomic<bool> finite = true;
#pragma omp parallel if (projection_work >= kParallelWork)
    {
        const bool q_ok = linearColumns(x_query, weights.wq(), bias, trace.q);
        const bool k_ok = linearColumns(x_key, weights.wk(), bias ? bias + d_model : nullptr, trace.k);
        const bool v_ok = linearColumns(x_value, weights.wv(), bias ? bias + 2 * d_model : nullptr, trace.v);
        if (!(q_ok && k_ok && v_ok))
            finite.store(false, std::memory_order_relaxed);
    }
    if (!finite)
        return refuseWeights();

    // 2. Per head and block of queries: scores = Q_h K_h^T / scale, mask, softmax,
    //    head output = weights V_h. A causal block only needs the keys up to its last query,
    //    so the masked upper triangle is never computed (unless the raw scores are wanted).
    const bool keep_scores = options.detail == TraceDetail::Full;
    trace.weights.resize(size_t(num_heads));
    for (Matrix& w : trace.weights) {
        w.resize(query_len, key_len);  // (query_len, key_len), every entry written below
        adviseHugePages(w);
    }
    if (keep_scores) {
        trace.scores.resize(size_t(num_heads));
        for (Matrix& s : trace.scores) {
            s.resize(query_len, key_len);  // (query_len, key_len)
            adviseHugePages(s);
        }
    }
    trace.concat.resize(query_len, d_model);
    // Every block of a head reads all of K_h^T and V_h, row by row (directProduct reads its
    // right-hand side in place): K_h^T is materialised once per head, and V_h's rows made
    // contiguous rather than d_model floats apart (together a fifth faster at T=2048).
    Matrix keys_t(d_model, key_len);               // rows [h * head_dim, (h+1) * head_dim) hold K_h^T
    Matrix values(num_heads * key_len, head_dim);  // rows [h * key_len, (h+1) * key_len) hold V_h
    const float inv_scale = 1.0f / trace.scale;
    const int blocks = (query_len + kQueryBlock - 1) / kQueryBlock;
    const std::int64_t attention_work = std::int64_t(num_heads) * query_len * key_len * head_dim;

#pragma omp parallel if (attention_work >= kParallelWork)
    {
#pragma omp for schedule(static)
        for (int head = 0; head < num_heads; ++head) {
            keys_t.middleRows(head * head_dim, head_dim) = trace.kHead(head).transpose();
            values.middleRows(head * key_len, key_len) = trace.vHead(head);
        }

#pragma omp for schedule(dynamic, 1)
        for (int task = 0; task < num_heads * blocks; ++task) {
            const int head = task / blocks;
            const int first = (task % blocks) * kQueryBlock;
            const int rows = std::min(kQueryBlock, query_len - first);
            const int keys = options.causal ? std::min(key_len, first + rows) : key_len;

            const auto q_h = trace.qHead(head).middleRows(first, rows);       // (rows, head_dim)
            const auto k_h_t = keys_t.middleRows(head * head_dim, head_dim);  // (head_dim, key_len)
            const auto v_h = values.middleRows(head * key_len, key_len);      // (key_len, head_dim)
            auto w = trace.weights[size_t(head)].middleRows(first, rows);     // (rows, key_len)

            // The raw scores Q_h K_h^T go into w (and stay in s for TraceDetail::Full); the
            // softmax divides them by the scale.
            if (keep_scores) {
                auto s = trace.scores[size_t(head)].middleRows(first, rows);  // (rows, key_len)
                directProduct(q_h, k_h_t, s);
                w.leftCols(keys) = s.leftCols(keys);
            } else {
                directProduct(q_h, k_h_t.leftCols(keys), w.leftCols(keys));
            }
            for (int i = 0; i < rows; ++i) {
                const int visible = options.causal ? std::min(key_len, first + i + 1) : key_len;
                maskedSoftmax(w.row(i), visible, options.key_padding, inv_scale);
            }
            directProduct(w.leftCols(keys), v_h.topRows(keys),
                          trace.concat.block(first, head * head_dim, rows, head_dim));
        }
    }

    // 3. Output projection of the concatenated heads: output = concat Wo + bo.
    if (weights.hasOutputProjection()) {
        trace.output.resize(query_len, weights.outputDim());  // (query_len, output_dim)
        const float* out_bias = weights.out_bias.size() > 0 ? weights.out_bias.data() : nullptr;
        const std::int64_t output_work = std::int64_t(query_len + 1) * d_model * weights.outputDim();
#pragma omp parallel if (output_work >= kParallelWork)
        if (!linearColumns(trace.concat, weights.out_proj, out_bias, trace.output))
            finite.store(false, std::memory_order_relaxed);
    } else {
        if (!allFinite(weights.out_bias))
            finite = false;
        trace.output = trace.concat;
    }
    if (!finite)
        return refuseWeights();
    return trace;
}

}  // namespace attn
