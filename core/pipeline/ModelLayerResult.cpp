#include "core/pipeline/ModelLayerResult.h"

#include "core/attention/AttentionEngine.h"
#include "core/model/RotaryEmbedding.h"

#include <QElapsedTimer>
#include <QFileInfo>

namespace attn {

Result<AttentionResult> ModelLayerResult::make(const TransformerModel& model, const QString& source,
                                               const ModelRun& run, const QStringList& tokens, int layer,
                                               TraceDetail detail)
{
    const ModelConfig& config = model.config();
    if (layer < 0 || layer >= run.numLayers())
        return Error{QStringLiteral("layer %1 is out of range, the model has layers 0 to %2")
                         .arg(layer)
                         .arg(run.numLayers() - 1)};
    if (tokens.size() != run.seqLen())
        return Error{QStringLiteral("%1 token texts for %2 tokens").arg(tokens.size()).arg(run.seqLen())};
    QElapsedTimer timer;
    timer.start();

    AttentionResult result;
    result.config.d_model = config.hidden_size;
    result.config.num_heads = config.num_heads;
    result.config.input_dim = config.hidden_size;
    result.config.weight_source = RunSettings::WeightSource::File;
    result.config.weights_file = source;
    result.config.layer = layer;
    result.config.causal = config.causal;
    result.config.scale.mode = config.scale_attention ? ScaleSetting::Mode::Sqrt : ScaleSetting::Mode::None;
    result.config.positional_encoding = false;  // not the sinusoidal encoding: the model's own
    result.input_formula =
        config.rotary_dim > 0
            ? QStringLiteral(
                  "x_t = layer %1's attention input, the model's hidden state (positions: Q and K are "
                  "rotated by position, RoPE)")
                  .arg(layer)
            : QStringLiteral(
                  "x_t = layer %1's attention input, the model's hidden state (learned position "
                  "embeddings were added to the token embeddings before layer 0)")
                  .arg(layer);
    for (const QString& text : tokens)
        result.input.tokens.append(Token{text, 0, 0});

    const bool selected = layer == run.selected_layer && run.layer_input.size() > 0;
    if (selected && (detail == TraceDetail::Probabilities || run.layer_trace.hasScores())) {
        result.input.x = run.layer_input;  // (T, C)
        result.trace = run.layer_trace;
        result.q_before_rotation = run.q_before_rotation;
        result.k_before_rotation = run.k_before_rotation;
    } else {
        const Matrix& input = selected ? run.layer_input : run.layer_inputs.at(size_t(layer));  // (T, C)
        if (input.rows() != run.seqLen())
            return Error{QStringLiteral("the run kept no input for layer %1").arg(layer)};
        // The layer's attention as the forward pass computed it: the rotary decoders rotate Q and K
        // by position and may hide keys outside a sliding window.
        const RotaryEmbedding rotary =
            config.rotary_dim > 0 ? RotaryEmbedding(config, run.seqLen()) : RotaryEmbedding();
        AttentionOptions options;
        options.causal = config.causal;
        options.sliding_window = config.sliding_window;
        options.scale = result.config.scale;
        options.detail = detail;
        if (config.rotary_dim > 0)
            options.rotate_positions = [&rotary, &result](MatrixRef projected, int heads, int head_dim,
                                                          int first_position, RotatedProjection which) {
                (which == RotatedProjection::Queries ? result.q_before_rotation : result.k_before_rotation) = projected;
                rotary.apply(projected, heads, head_dim, first_position);
            };
        auto trace = AttentionEngine::forward(input, model.weights().layers[size_t(layer)].attention, options);
        if (!trace)
            return Error{QStringLiteral("layer %1 attention: %2").arg(layer).arg(trace.error())};
        result.input.x = input;
        result.trace = std::move(trace).value();
    }
    if (config.rotary_dim > 0) {
        result.rotary_dim = config.rotary_dim;
        result.inverse_frequencies = RotaryEmbedding::inverseFrequencies(config);
    }
    result.trace.probabilities = run.attention.layer(layer);  // H x (T, T): the maps the run kept
    result.output_dim = config.hidden_size;
    result.has_output_projection = true;
    result.parameter_count = model.weights().layers[size_t(layer)].attention.parameterCount();
    result.weights_description = QStringLiteral("%1 (%2, layer %3 of %4)")
                                     .arg(QFileInfo(source).fileName(), config.model_type)
                                     .arg(layer)
                                     .arg(config.num_layers);
    result.layer_count = config.num_layers;
    result.compute_ms = double(timer.nsecsElapsed()) / 1e6;
    return result;
}

}  // namespace attn
