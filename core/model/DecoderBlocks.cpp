#include "core/model/DecoderBlocks.h"

#include "core/attention/AttentionEngine.h"
#include "core/model/FeedForward.h"
#include "core/model/RmsNorm.h"
#include "core/ops/LayerNorm.h"

namespace attn {
namespace {

// Causal self-attention with Q and K rotated between the projections and the scores (and, for
// a captured layer, kept as they were before the rotation).   h (T, C) -> trace.output (T, C)
// With a cache: h (n, C) new rows -> trace.output (n, C), trace.probabilities H x (n, cached + n).
Result<AttentionTrace> attend(const ModelConfig& config, int layer, const LayerWeights& w,
                              const RotaryEmbedding& rotary, const Matrix& h, const LayerCapture& capture,
                              KeyValueCache* cache, const ForwardIntervention* edit)
{
    AttentionOptions options;
    options.causal = true;
    options.sliding_window = config.sliding_window;
    options.scale.mode = ScaleSetting::Mode::Sqrt;
    options.detail = TraceDetail::Probabilities;
    options.rotate_positions = [&rotary, &capture](MatrixRef projected, int heads, int head_dim, int first_position,
                                                   RotatedProjection which) {
        Matrix* before = which == RotatedProjection::Queries ? capture.q_before_rotation : capture.k_before_rotation;
        if (before)
            *before = projected;
        rotary.apply(projected, heads, head_dim, first_position);
    };
    if (edit)
        options.edit_head_outputs = edit->headOutputsHook(layer, config.headDim());
    if (capture.attention_input)
        *capture.attention_input = h;
    auto trace = cache ? AttentionEngine::forwardAppending(h, w.attention, options, *cache)
                       : AttentionEngine::forward(h, w.attention, options);
    if (!trace)
        return Error{QStringLiteral("layer %1 attention: %2").arg(layer).arg(trace.error())};
    return trace;
}

}  // namespace

Result<AttentionTrace> DecoderBlocks::llama(const ModelConfig& config, int layer, const LayerWeights& w,
                                            const RotaryEmbedding& rotary, Matrix& x, const LayerCapture& capture,
                                            KeyValueCache* cache, const ForwardIntervention* edit)
{
    const float eps = float(config.layer_norm_eps);
    Matrix h(x.rows(), x.cols());  // (T, C): input_layernorm(x)
    rmsNorm(x, w.attn_norm_weight, eps, h);
    auto attention = attend(config, layer, w, rotary, h, capture, cache, edit);
    if (!attention)
        return attention;
    if (edit)
        edit->apply(layer, InterventionSite::Attention, attention->output, config.headDim());
    x += attention->output;

    rmsNorm(x, w.mlp_norm_weight, eps, h);               // post_attention_layernorm(x)
    auto feed_forward = gatedFeedForward(config, w, h);  // (T, C)
    if (!feed_forward)
        return Error{feed_forward.error()};
    if (edit)
        edit->apply(layer, InterventionSite::Mlp, feed_forward.value(), config.headDim());
    x += *feed_forward;
    return attention;
}

Result<AttentionTrace> DecoderBlocks::gptNeox(const ModelConfig& config, int layer, const LayerWeights& w,
                                              const RotaryEmbedding& rotary, Matrix& x, const LayerCapture& capture,
                                              KeyValueCache* cache, const ForwardIntervention* edit)
{
    const float eps = float(config.layer_norm_eps);
    Matrix h(x.rows(), x.cols());  // (T, C): input_layernorm(x)
    layerNorm(x, w.attn_norm_weight, w.attn_norm_bias, eps, h);
    auto attention = attend(config, layer, w, rotary, h, capture, cache, edit);
    if (!attention)
        return attention;
    if (edit)
        edit->apply(layer, InterventionSite::Attention, attention->output, config.headDim());

    if (config.parallel_residual) {
        layerNorm(x, w.mlp_norm_weight, w.mlp_norm_bias, eps, h);  // post_attention_layernorm(x)
        auto feed_forward = feedForward(config, w, h);             // (T, C)
        if (!feed_forward)
            return Error{feed_forward.error()};
        if (edit)
            edit->apply(layer, InterventionSite::Mlp, feed_forward.value(), config.headDim());
        // hidden_states = mlp_output + attn_output + hidden_states
        x = (*feed_forward + attention->output) + x;
        return attention;
    }
    x += attention->output;  // attn_output = attn_output + hidden_states
    layerNorm(x, w.mlp_norm_weight, w.mlp_norm_bias, eps, h);
    auto feed_forward = feedForward(config, w, h);
    if (!feed_forward)
        return Error{feed_forward.error()};
    if (edit)
        edit->apply(layer, InterventionSite::Mlp, feed_forward.value(), config.headDim());
    x = *feed_forward + x;  // mlp_output + attn_output
    return attention;
}

}  // namespace attn
