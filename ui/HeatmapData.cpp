#include "HeatmapData.h"

#include "AttentionResult.h"

namespace attn {

HeatmapData HeatmapData::fromResult(const AttentionResult& result)
{
    HeatmapData data;
    data.labels.reserve(result.input.tokens.size());
    for (const Token& token : result.input.tokens)
        data.labels.append(token.text);
    const AttentionTrace& trace = result.trace;
    const int queries = trace.queryLength();
    const int keys = trace.keyLength();
    data.mask = MaskMatrix::Constant(queries, keys, false);
    for (int query = 0; query < queries; ++query)
        for (int key = 0; key < keys; ++key)
            data.mask(query, key) = trace.isMasked(query, key);
    data.any_masked = data.mask.any();
    double high = 0.0;
    for (const Matrix& weights : trace.weights)
        high = std::max(high, double(weights.maxCoeff()));  // masked weights are exactly 0
    data.high = high > 0.0 ? high : 1.0;
    return data;
}

}  // namespace attn
