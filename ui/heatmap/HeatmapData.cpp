#include "ui/heatmap/HeatmapData.h"

#include "core/pipeline/AttentionResult.h"

#include <QCoreApplication>

#include <algorithm>

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
    // Nothing masked: no mask at all (a 20,000-token matrix would spend 400 MB on falses).
    const bool any_padding =
        std::find(trace.key_padding.begin(), trace.key_padding.end(), true) != trace.key_padding.end();
    if (trace.causal || any_padding)
        data.mask = MaskMatrix::Constant(queries, keys, false);
    if (trace.causal)
        for (int query = 0; query + 1 < keys && query < queries; ++query)
            data.mask.row(query).tail(keys - query - 1).setConstant(true);
    for (int key = 0; key < int(trace.key_padding.size()) && key < keys; ++key)
        if (trace.key_padding[size_t(key)])
            data.mask.col(key).setConstant(true);
    data.any_masked = data.mask.size() > 0 && data.mask.any();
    std::vector<bool> one_key(size_t(queries), false);  // rows that see a single key
    for (int query = 0; query < queries; ++query) {
        one_key[size_t(query)] = keys - (data.mask.size() > 0 ? int(data.mask.row(query).count()) : 0) == 1;
        if (one_key[size_t(query)]) {
            if (data.one_key_rows.size() < 3)
                data.one_key_rows.append(query);
            ++data.one_key_row_count;
        }
    }
    double high = 0.0;
    double high_without = 0.0;
    for (const Matrix& weights : trace.weights) {  // (queries, keys); masked weights are exactly 0
        high = std::max(high, double(weights.maxCoeff()));
        if (data.one_key_row_count == 0)
            continue;
        for (int query = 0; query < queries; ++query)
            if (!one_key[size_t(query)])
                high_without = std::max(high_without, double(weights.row(query).maxCoeff()));
    }
    data.high = high > 0.0 ? high : 1.0;
    data.high_without_one_key_rows = data.one_key_row_count == 0 ? data.high : high_without;
    if (!(data.high_without_one_key_rows > 0.0))  // every row sees one key (a single token)
        data.high_without_one_key_rows = data.high;
    return data;
}

double HeatmapData::top(ColorScale scale) const
{
    return scale == ColorScale::WithoutOneKeyRows ? high_without_one_key_rows : high;
}

QString HeatmapData::scaleNote(ColorScale scale) const
{
    if (scale != ColorScale::WithoutOneKeyRows || one_key_row_count == 0 || high_without_one_key_rows >= high)
        return {};
    if (one_key_row_count == 1)
        return QCoreApplication::translate("HeatmapData", "row %1 (one key) off scale").arg(one_key_rows.first());
    return QCoreApplication::translate("HeatmapData", "%1 one-key rows off scale").arg(one_key_row_count);
}

}  // namespace attn
