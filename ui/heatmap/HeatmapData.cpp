#include "ui/heatmap/HeatmapData.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/ProbabilityPercentile.h"
#include "core/pipeline/AttentionResult.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace attn {

HeatmapData HeatmapData::fromResult(const AttentionResult& result, ColorScale scale)
{
    HeatmapData data;
    data.labels.reserve(result.input.tokens.size());
    for (const Token& token : result.input.tokens)
        data.labels.append(token.text);
    data.key_labels.reserve(result.keyTokens().size());
    for (const Token& token : result.keyTokens())
        data.key_labels.append(token.text);
    data.value_norms = result.value_norms;
    const AttentionTrace& trace = result.trace;
    const int queries = trace.queryLength();
    const int keys = trace.keyLength();
    // AttentionTrace::isMasked, a row or a column at a time: causal hides the keys after the
    // query, a sliding window those W or more before it, padding hides whole key columns.
    // Nothing masked: no mask at all (a 20,000-token matrix would spend 400 MB on falses).
    const bool any_padding =
        std::find(trace.key_padding.begin(), trace.key_padding.end(), true) != trace.key_padding.end();
    const bool any_hidden =
        std::find(result.hidden_keys.begin(), result.hidden_keys.end(), true) != result.hidden_keys.end();
    if (trace.causal || any_padding || any_hidden)
        data.mask = MaskMatrix::Constant(queries, keys, false);
    if (trace.causal)
        for (int query = 0; query + 1 < keys && query < queries; ++query)
            data.mask.row(query).tail(keys - query - 1).setConstant(true);
    if (trace.causal && trace.sliding_window > 0)
        for (int query = 0; query < queries; ++query) {
            const int too_far = std::min(keys, trace.query_offset + query - trace.sliding_window + 1);
            if (too_far > 0)
                data.mask.row(query).head(too_far).setConstant(true);
        }
    for (int key = 0; key < int(trace.key_padding.size()) && key < keys; ++key)
        if (trace.key_padding[size_t(key)])
            data.mask.col(key).setConstant(true);
    for (int key = 0; key < int(result.hidden_keys.size()) && key < keys; ++key) {
        if (!result.hidden_keys[size_t(key)])
            continue;
        data.hidden_keys.append(key);
        data.mask.col(key).setConstant(true);
        if (key < data.key_labels.size())
            data.key_labels[key] = struck(data.key_labels[key]);
    }
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
    // A long input's heads (all but one not kept) by the largest weight of each row, which the
    // engine noted while it computed them.
    const bool by_rows = !trace.keepsEveryHead() && int(trace.row_max.size()) == trace.num_heads;
    for (int head = 0; head < trace.num_heads; ++head) {
        std::shared_ptr<const Matrix> weights;  // (queries, keys); masked weights are exactly 0
        if (!by_rows)
            weights = AttentionDisplay::headProbabilities(result, head);
        const auto row_max = [&](int query) {
            return by_rows ? double(trace.row_max[size_t(head)](query)) : double(weights->row(query).maxCoeff());
        };
        if (!by_rows && weights->size() > 0)
            high = std::max(high, double(weights->maxCoeff()));
        for (int query = 0; query < queries && keys > 0; ++query) {
            if (by_rows)
                high = std::max(high, row_max(query));
            if (data.one_key_row_count > 0 && !one_key[size_t(query)])
                high_without = std::max(high_without, row_max(query));
        }
    }
    data.high = high > 0.0 ? high : 1.0;
    data.high_without_one_key_rows = data.one_key_row_count == 0 ? data.high : high_without;
    if (!(data.high_without_one_key_rows > 0.0))  // every row sees one key (a single token)
        data.high_without_one_key_rows = data.high;
    if (scale == ColorScale::Percentile && !trace.keepsEveryHead()) {
        // Every head recomputed twice (probabilityPercentile): on a worker, kept with the result.
        std::lock_guard lock(result.derived->mutex);
        const std::optional<double> top = result.derived->percentile_top;
        data.percentile_pending = !top;
        data.percentile_top = top && *top > 0.0 ? *top : data.high;
    } else if (scale == ColorScale::Percentile) {
        const double top = AttentionDisplay::percentile(trace.probabilities, data.mask, ColorScales::kPercentile);
        data.percentile_top = top > 0.0 ? top : data.high;
    }
    return data;
}

bool HeatmapData::percentileMissing(const AttentionResult& result)
{
    if (result.trace.keepsEveryHead())
        return false;  // fromResult finds it from the matrices
    std::lock_guard lock(result.derived->mutex);
    return !result.derived->percentile_top;
}

bool HeatmapData::computePercentile(const AttentionResult& result, const std::function<bool()>& cancelled)
{
    if (!percentileMissing(result))
        return true;
    const HeatmapData data = fromResult(result, ColorScale::AllCells);  // the mask the views use
    const std::optional<double> top = probabilityPercentile(result, data.mask, ColorScales::kPercentile, cancelled);
    if (!top)
        return false;
    std::lock_guard lock(result.derived->mutex);
    result.derived->percentile_top = *top;
    return true;
}

QString HeatmapData::kindLabel(bool value_norms)
{
    return value_norms ? QCoreApplication::translate("HeatmapData", "norms ||A f(x)||")
                       : QCoreApplication::translate("HeatmapData", "weights");
}

QString HeatmapData::struck(const QString& label)
{
    QString out;
    out.reserve(label.size() * 2);
    for (const QChar c : label) {
        out += c;
        out += QChar(0x0336);  // COMBINING LONG STROKE OVERLAY
    }
    return out;
}

HeatmapData::Range HeatmapData::range(ColorScale scale) const
{
    Range range;
    switch (scale) {
        case ColorScale::AllCells:
        case ColorScale::WithoutOneKeyRows:
            range.high = top(scale);
            range.note = scaleNote(scale);
            break;
        case ColorScale::PerRow:
            range.high = 1.0;
            range.mapping = HeatmapPlot::ColorMapping::PerRow;
            range.note = QCoreApplication::translate("HeatmapData", "each row / its max");
            break;
        case ColorScale::Log:
            range.high = high;
            range.low = high * std::pow(10.0, -ColorScales::kLogDecades);
            range.mapping = HeatmapPlot::ColorMapping::Log;
            range.note = QCoreApplication::translate("HeatmapData", "log scale");
            break;
        case ColorScale::Percentile:
            range.high = percentile_top;
            range.note = percentile_pending
                             ? QCoreApplication::translate("HeatmapData", "percentile being computed: 0 .. largest")
                             : QCoreApplication::translate("HeatmapData", "clipped at the %1th percentile")
                                   .arg(ColorScales::kPercentile);
            break;
    }
    if (value_norms && (scale == ColorScale::AllCells || scale == ColorScale::WithoutOneKeyRows)) {
        const QString largest = QCoreApplication::translate("HeatmapData", "0 .. largest norm %1")
                                    .arg(QString::number(range.high, 'g', 3));
        range.note = range.note.isEmpty() ? largest : range.note + QStringLiteral(" · ") + largest;
    }
    if (!hidden_keys.isEmpty()) {
        const QString hidden =
            hidden_keys.size() == 1
                ? QCoreApplication::translate("HeatmapData", "key %1 hidden").arg(hidden_keys.first())
                : QCoreApplication::translate("HeatmapData", "%1 keys hidden").arg(hidden_keys.size());
        range.note = range.note.isEmpty() ? hidden : range.note + QStringLiteral(" · ") + hidden;
    }
    return range;
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
