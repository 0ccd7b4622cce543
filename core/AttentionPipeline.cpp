#include "AttentionPipeline.h"

#include "PositionalEncoding.h"
#include "TokenEmbedder.h"
#include "Tokenizer.h"

namespace attn {

AttentionInput AttentionPipeline::inputFromSentence(const QString& sentence, const ModelConfig& config)
{
    AttentionInput input;
    input.tokens = Tokenizer::tokenize(sentence);
    const int dim = config.effectiveInputDim();
    input.x = TokenEmbedder::embed(input.tokens, config.seed, dim);
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

Result<LoadedWeights> AttentionPipeline::buildWeights(const ModelConfig& config)
{
    switch (config.weight_source) {
    case ModelConfig::WeightSource::File:
        return WeightFile::load(config.weights_file, {config.layer, config.file_num_heads});
    case ModelConfig::WeightSource::Identity: {
        auto weights = AttentionWeights::identity(config.effectiveInputDim(), config.d_model, config.num_heads);
        if (!weights)
            return Error{weights.error()};
        return LoadedWeights{std::move(weights).value(), 1, QStringLiteral("identity")};
    }
    case ModelConfig::WeightSource::Random:
        break;
    }
    auto weights = AttentionWeights::random(config.effectiveInputDim(), config.d_model, config.num_heads, config.seed);
    if (!weights)
        return Error{weights.error()};
    return LoadedWeights{std::move(weights).value(), 1, QStringLiteral("random")};
}

AttentionOptions AttentionPipeline::optionsFor(const ModelConfig& config, TraceDetail detail)
{
    AttentionOptions options;
    options.causal = config.causal;
    options.scale = config.scale;
    options.detail = detail;
    return options;
}

}  // namespace attn
