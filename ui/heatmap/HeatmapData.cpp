#include "ui/heatmap/HeatmapData.h"

#include "core/pipeline/AttentionResult.h"

namespace attn {

HeatmapData HeatmapData::fromResult(const AttentionResult& result)
{
    HeatmapData data;
    data.labels.reserve(result.input.tokens.size());
    for (const Token& token : result.input.tokens)
        data.labels.append(token.text);
    data.key_labels.reserve(result.keyTokens().size());
    for (const Token& token : result.keyTokens())
        data.key_labels.append(token.text);
    const AttentionTrace& trace = result.trace;
    const int queries = trace.queryLength();
    const int keys = trace.keyLength();
    // AttentionTrace::isMasked, a row or a column at a time: causal hides the keys after the
    // query, padding hides whole key columns.
    data.mask = MaskMatrix::Constant(queries, keys, false);
    if (trace.causal)
        for (int query = 0; query + 1 < keys && query < queries; ++query)
            data.mask.row(query).tail(keys - query - 1).setConstant(true);
    for (int key = 0; key < int(trace.key_padding.size()) && key < keys; ++key)
        if (trace.key_padding[size_t(key)])
            data.mask.col(key).setConstant(true);
    data.any_masked = data.mask.any();
    double high = 0.0;
    for (const Matrix& weights : trace.weights)
        high = std::max(high, double(weights.maxCoeff()));  // masked weights are exactly 0
    data.high = high > 0.0 ? high : 1.0;
    return data;
}

}  // namespace attn
