#include "core/pipeline/AttentionPipeline.h"

#include "core/attention/AttentionEngine.h"
#include "core/attention/CellBlocks.h"
#include "core/pipeline/AttentionResult.h"

#include "core/ops/HashEmbedder.h"
#include "core/ops/PositionalEncoding.h"
#include "core/text/WordSplitter.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>

namespace attn {

AttentionInput AttentionPipeline::inputFromSentence(const QString& sentence, const RunSettings& config)
{
    return inputFromTokens(WordSplitter::split(sentence), config);
}

AttentionInput AttentionPipeline::inputFromTokens(TokenList tokens, const RunSettings& config)
{
    AttentionInput input;
    input.tokens = std::move(tokens);
    const int dim = config.effectiveInputDim();
    input.x = HashEmbedder::embed(input.tokens, config.seed, dim);
    if (config.positional_encoding) {
        input.positional = PositionalEncoding::sinusoidal(int(input.tokens.size()), dim);
        input.x += input.positional;
    }
    return input;
}

Result<AttentionInput> AttentionPipeline::inputFromMatrix(Matrix x, const QStringList& labels)
{
    if (x.rows() == 0 || x.cols() == 0)
        return Error{QStringLiteral("the input matrix is empty (%1 x %2)").arg(x.rows()).arg(x.cols())};
    if (!x.allFinite())
        return Error{QStringLiteral("the input matrix contains NaN or infinite values")};
    if (!labels.isEmpty() && labels.size() != x.rows())
        return Error{QStringLiteral("%1 token labels for %2 input rows").arg(labels.size()).arg(x.rows())};
    AttentionInput input;
    for (qsizetype row = 0; row < x.rows(); ++row) {
        const QString label = labels.isEmpty() ? QString::number(row) : labels[row];
        input.tokens.append({label, 0, 0});
    }
    input.x = std::move(x);
    return input;
}

Result<LoadedWeights> AttentionPipeline::buildWeights(const RunSettings& config)
{
    switch (config.weight_source) {
        case RunSettings::WeightSource::File:
            return WeightFile::load(config.weights_file, {config.layer, config.file_num_heads});
        case RunSettings::WeightSource::Identity: {
            auto weights = AttentionWeights::identity(config.effectiveInputDim(), config.d_model, config.num_heads);
            if (!weights)
                return Error{weights.error()};
            return LoadedWeights{std::move(weights).value(), 1, QStringLiteral("identity")};
        }
        case RunSettings::WeightSource::Random:
            break;
    }
    auto weights = AttentionWeights::random(config.effectiveInputDim(), config.d_model, config.num_heads, config.seed);
    if (!weights)
        return Error{weights.error()};
    return LoadedWeights{std::move(weights).value(), 1, QStringLiteral("random")};
}

AttentionOptions AttentionPipeline::optionsFor(const RunSettings& config, TraceDetail detail)
{
    AttentionOptions options;
    options.causal = config.causal;
    options.scale = config.scale;
    options.detail = detail;
    return options;
}

int AttentionPipeline::blockFactorFor(int query_len, int key_len, int num_heads, int reduced_side,
                                        std::int64_t long_route_bytes)
{
    if (reduced_side <= 0)
        return 0;
    const int factor = reductionFactor(query_len, key_len, reduced_side);
    const std::int64_t bytes = std::int64_t(sizeof(float)) * std::max(0, num_heads) * std::max(0, query_len) *
                               std::max(0, key_len);
    return factor > 1 && bytes > long_route_bytes ? factor : 0;
}

Result<std::vector<bool>> AttentionPipeline::keyPadding(const RunSettings& config, int key_len)
{
    std::vector<bool> padding;
    if (config.padded_keys.isEmpty())
        return padding;
    padding.assign(size_t(std::max(0, key_len)), false);
    for (int key : config.padded_keys) {
        if (key < 0 || key >= key_len)
            return Error{QStringLiteral("key position %1 is outside the %2 keys (0 to %3)")
                             .arg(key)
                             .arg(key_len)
                             .arg(key_len - 1)};
        padding[size_t(key)] = true;
    }
    return padding;
}

Result<AttentionResult> AttentionPipeline::run(const RunSettings& config, AttentionInput input,
                                               const LoadedWeights& loaded, TraceDetail detail)
{
    return run(config, std::move(input), AttentionInput{}, loaded, detail);
}

Result<AttentionResult> AttentionPipeline::run(const RunSettings& config, AttentionInput input, AttentionInput kv_input,
                                               const LoadedWeights& loaded, TraceDetail detail, int block_factor,
                                               int kept_head)
{
    const AttentionWeights& weights = loaded.weights;
    const bool cross = !kv_input.tokens.isEmpty();
    if (cross && config.causal)
        return Error{QStringLiteral("the causal mask needs self-attention: queries and keys from one input")};
    const Matrix& x_kv = cross ? kv_input.x : input.x;  // (key_len, input_dim)
    AttentionOptions options = optionsFor(config, detail);
    auto padding = keyPadding(config, int(x_kv.rows()));
    if (!padding)
        return Error{padding.error()};
    options.key_padding = std::move(padding).value();
    options.block_factor = block_factor;
    options.kept_head = kept_head;

    QElapsedTimer timer;
    timer.start();
    auto trace = AttentionEngine::forward(input.x, x_kv, x_kv, weights, options);
    if (!trace)
        return Error{trace.error()};

    AttentionResult result;
    result.compute_ms = double(timer.nsecsElapsed()) / 1e6;
    result.config = config;
    result.input = std::move(input);
    result.kv_input = std::move(kv_input);
    result.trace = std::move(trace).value();
    result.output_dim = weights.outputDim();
    result.has_output_projection = weights.hasOutputProjection();
    result.parameter_count = weights.parameterCount();
    result.layer_count = loaded.layer_count;
    switch (config.weight_source) {
        case RunSettings::WeightSource::Random:
            result.weights_description = QStringLiteral("random (seed %1)").arg(config.seed);
            break;
        case RunSettings::WeightSource::Identity:
            result.weights_description = QStringLiteral("identity");
            break;
        case RunSettings::WeightSource::File:
            result.weights_description =
                loaded.layer_count > 1
                    ? QStringLiteral("%1 (%2, layer %3 of %4)")
                          .arg(QFileInfo(config.weights_file).fileName(), loaded.scheme)
                          .arg(config.layer)
                          .arg(loaded.layer_count)
                    : QStringLiteral("%1 (%2)").arg(QFileInfo(config.weights_file).fileName(), loaded.scheme);
            break;
    }
    return result;
}

Result<AttentionResult> AttentionPipeline::run(const RunSettings& config, const QString& sentence, TraceDetail detail)
{
    TokenList tokens = WordSplitter::split(sentence);
    if (tokens.isEmpty())
        return Error{QStringLiteral("the sentence has no tokens")};
    auto weights = buildWeights(config);
    if (!weights)
        return Error{weights.error()};
    // Loaded weights fix the input dimension: embed at the file's size.
    RunSettings sized = config;
    sized.input_dim = weights->weights.inputDim();
    return run(config, inputFromTokens(std::move(tokens), sized), weights.value(), detail);
}

}  // namespace attn
