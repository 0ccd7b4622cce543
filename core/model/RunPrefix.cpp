#include "core/model/RunPrefix.h"

namespace attn {
namespace {

Matrix firstRows(const Matrix& m, int rows)
{
    return m.rows() >= rows ? Matrix(m.topRows(rows)) : m;
}

std::vector<Matrix> firstRows(const std::vector<Matrix>& matrices, int rows)
{
    std::vector<Matrix> kept;
    kept.reserve(matrices.size());
    for (const Matrix& m : matrices)
        kept.push_back(firstRows(m, rows));
    return kept;
}

// Square per-head matrices (queries x keys) cut to the prefix's queries and keys.
std::vector<Matrix> topLeft(const std::vector<Matrix>& heads, int length)
{
    std::vector<Matrix> kept;
    kept.reserve(heads.size());
    for (const Matrix& m : heads)
        kept.push_back(m.size() == 0 ? m
                                     : Matrix(m.topLeftCorner(std::min<Eigen::Index>(length, m.rows()),
                                                              std::min<Eigen::Index>(length, m.cols()))));
    return kept;
}

}  // namespace

Result<ModelRun> runPrefix(const ModelRun& run, int length)
{
    if (!run.attention.isCausal())
        return Error{
            QStringLiteral("a prefix of a run needs a causal model: every token of a bidirectional "
                           "model's run sees the ones after it")};
    if (length < 1 || length > run.seqLen())
        return Error{QStringLiteral("a prefix of %1 tokens of a run of %2").arg(length).arg(run.seqLen())};
    ModelRun prefix;
    prefix.token_ids.assign(run.token_ids.begin(), run.token_ids.begin() + length);
    prefix.attention = AttentionMaps(run.numLayers(), run.attention.numHeads(), length, true);
    prefix.attention.setSlidingWindow(run.attention.slidingWindow());
    prefix.attention.copyRows(run.attention, length);
    prefix.value_norms = run.value_norms;
    prefix.last_hidden_state = firstRows(run.last_hidden_state, length);
    prefix.num_kv_heads = run.num_kv_heads;
    prefix.layer_inputs = firstRows(run.layer_inputs, length);
    prefix.residual_stream = firstRows(run.residual_stream, length);
    prefix.selected_layer = run.selected_layer;
    prefix.layer_input = firstRows(run.layer_input, length);
    prefix.q_before_rotation = firstRows(run.q_before_rotation, length);
    prefix.k_before_rotation = firstRows(run.k_before_rotation, length);

    const AttentionTrace& trace = run.layer_trace;
    AttentionTrace& kept = prefix.layer_trace;
    kept.num_heads = trace.num_heads;
    kept.num_kv_heads = trace.num_kv_heads;
    kept.head_dim = trace.head_dim;
    kept.scale = trace.scale;
    kept.causal = trace.causal;
    kept.sliding_window = trace.sliding_window;
    kept.query_offset = trace.query_offset;
    if (!trace.key_padding.empty())
        kept.key_padding.assign(trace.key_padding.begin(), trace.key_padding.begin() + length);
    kept.q = firstRows(trace.q, length);
    kept.k = firstRows(trace.k, length);
    kept.v = firstRows(trace.v, length);
    kept.scores = topLeft(trace.scores, length);
    kept.probabilities = topLeft(trace.probabilities, length);
    kept.concat = firstRows(trace.concat, length);
    kept.output = firstRows(trace.output, length);
    return prefix;
}

}  // namespace attn
