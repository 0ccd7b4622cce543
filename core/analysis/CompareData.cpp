#include "core/analysis/CompareData.h"

#include "core/analysis/AttentionDisplay.h"

#include "core/analysis/HeadMetrics.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"
#include "core/text/WordSplitter.h"

#include <QFileInfo>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <utility>

namespace attn {

Result<HeadComparison> CompareData::compare(Matrix a, Matrix b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return Error{QStringLiteral("cannot compare a %1 x %2 head with a %3 x %4 head: the inputs differ in length")
                         .arg(a.rows())
                         .arg(a.cols())
                         .arg(b.rows())
                         .arg(b.cols())};
    HeadComparison comparison;
    comparison.difference = a - b;
    comparison.a = std::move(a);  // a long input's heads are 256 MB each at 8,192 tokens: moved, not copied
    comparison.b = std::move(b);
    const Matrix& a_shown = comparison.a;
    const Matrix& b_shown = comparison.b;
    if (a_shown.size() > 0) {
        comparison.shared_min = std::min({0.0f, a_shown.minCoeff(), b_shown.minCoeff()});
        comparison.shared_max = std::max(a_shown.maxCoeff(), b_shown.maxCoeff());
        const float limit = comparison.difference.cwiseAbs().maxCoeff();
        comparison.largest_difference = limit;
        // Two identical heads: any non-empty range shows the all-zero difference as the centre colour.
        comparison.difference_limit = limit > 0.0f ? limit : 1.0f;
    }
    if (!(comparison.shared_max > comparison.shared_min))
        comparison.shared_max = comparison.shared_min + 1.0f;
    comparison.divergence = jensenShannon(a_shown, b_shown);
    comparison.metric_a = computeHeadMetrics(a_shown);
    comparison.metric_b = computeHeadMetrics(b_shown);
    return comparison;
}

Result<Matrix> CompareData::headProbabilities(const AttentionResult& result, int head)
{
    if (Status exists = HeadIndex::check(head, int(result.trace.probabilities.size())); !exists)
        return Error{exists.error()};
    return Matrix(*AttentionDisplay::headProbabilities(result, head));  // a long input's: recomputed
}

Result<AttentionResult> CompareData::runVariant(const AttentionResult& base, const RunSettings& config,
                                                 const LoadedWeights& weights, const QString& sentence,
                                                 int block_factor)
{
    Result<AttentionResult> variant = [&]() -> Result<AttentionResult> {
        if (!sentence.trimmed().isEmpty()) {
            TokenList tokens = WordSplitter::split(sentence);
            if (tokens.isEmpty())
                return Error{QStringLiteral("the sentence has no tokens")};
            RunSettings sized = config;  // the weights fix the input width: embed at their size
            sized.input_dim = weights.weights.inputDim();
            // Cross-attention: the keys' sentence embedded again under these settings, too.
            AttentionInput kv =
                base.isCross() ? AttentionPipeline::inputFromTokens(base.kv_input.tokens, sized) : AttentionInput{};
            return AttentionPipeline::run(config, AttentionPipeline::inputFromTokens(std::move(tokens), sized),
                                          std::move(kv), weights, TraceDetail::Probabilities, block_factor);
        }
        if (weights.weights.inputDim() != base.input.x.cols())
            return Error{QStringLiteral("these weights expect input dimension %1, the input rows have %2")
                             .arg(weights.weights.inputDim())
                             .arg(base.input.x.cols())};
        return AttentionPipeline::run(config, base.input, base.kv_input, weights, TraceDetail::Probabilities, block_factor);
    }();
    if (!variant)
        return variant;
    if (variant->seqLen() != base.seqLen())
        return Error{QStringLiteral("the other settings give %1 tokens, the compared result has %2")
                         .arg(variant->seqLen())
                         .arg(base.seqLen())};
    if (variant->keyLen() != base.keyLen())
        return Error{QStringLiteral("the other settings give %1 keys, the compared result has %2")
                         .arg(variant->keyLen())
                         .arg(base.keyLen())};
    return variant;
}

Result<AttentionResult> CompareData::runVariant(const AttentionResult& base, const RunSettings& config,
                                                 const QString& sentence)
{
    auto weights = AttentionPipeline::buildWeights(config);
    if (!weights)
        return Error{weights.error()};
    return runVariant(base, config, weights.value(), sentence);
}

QString CompareData::describeDifference(const RunSettings& base, const RunSettings& other)
{
    QStringList parts;
    if (other.weight_source != base.weight_source || other.weights_file != base.weights_file) {
        switch (other.weight_source) {
            case RunSettings::WeightSource::Random:
                parts << QStringLiteral("random weights");
                break;
            case RunSettings::WeightSource::Identity:
                parts << QStringLiteral("identity weights");
                break;
            case RunSettings::WeightSource::File:
                parts << QFileInfo(other.weights_file).fileName();
                break;
        }
    }
    if (other.weight_source == RunSettings::WeightSource::File && other.layer != base.layer)
        parts << QStringLiteral("layer %1").arg(other.layer);
    if (other.seed != base.seed)
        parts << QStringLiteral("seed %1").arg(other.seed);
    if (other.causal != base.causal)
        parts << (other.causal ? QStringLiteral("causal") : QStringLiteral("not causal"));
    if (other.num_heads != base.num_heads || other.file_num_heads != base.file_num_heads)
        parts << QStringLiteral("%1 heads")
                     .arg(other.weight_source == RunSettings::WeightSource::File && other.file_num_heads > 0
                              ? other.file_num_heads
                              : other.num_heads);
    if (!(other.scale == base.scale))
        parts << QStringLiteral("scale %1").arg(other.scale.toString());
    if (other.d_model != base.d_model && other.weight_source != RunSettings::WeightSource::File)
        parts << QStringLiteral("d_model %1").arg(other.d_model);
    return parts.join(QStringLiteral(", "));
}

}  // namespace attn
