#include "core/model/TransformerForward.h"

#include "core/attention/AttentionEngine.h"
#include "core/model/DecoderBlocks.h"
#include "core/model/FeedForward.h"
#include "core/model/RmsNorm.h"
#include "core/ops/LayerNorm.h"

#include <algorithm>

namespace attn {
namespace {

// The embeddings of the tokens from position `first` on: word[ids] (+ type[0]) + pos[first..T),
// then the embedding LayerNorm of the BERT family. In-place tables are checked here, row by row,
// for the rows used.   -> (T - first, C)
Result<Matrix> embed(const ModelConfig& config, const ModelWeights& w, const std::vector<int>& ids, int first = 0)
{
    const int seq_len = int(ids.size());
    const auto word = w.word_embeddings.view();          // (V, C)
    const auto position = w.position_embeddings.view();  // (P, C)
    Matrix x(seq_len - first, config.hidden_size);       // (T - first, C)
    for (int t = first; t < seq_len; ++t) {
        const auto word_row = word.row(ids[size_t(t)]);  // (C)
        if (!allFinite(word_row))
            return notFinite(w.word_embeddings);
        if (w.position_embeddings.isEmpty()) {  // rotary positions: added to Q and K, not here
            x.row(t - first) = word_row;
            continue;
        }
        if (!allFinite(position.row(t)))
            return notFinite(w.position_embeddings);
        if (w.token_type_embeddings.isEmpty()) {
            x.row(t - first) = word_row + position.row(t);
        } else {
            // BertEmbeddings: (inputs_embeds + token_type_embeddings) + position_embeddings.
            const auto type_row = w.token_type_embeddings.view().row(0);  // token type 0 everywhere
            if (!allFinite(type_row))
                return notFinite(w.token_type_embeddings);
            x.row(t - first) = (word_row + type_row) + position.row(t);
        }
    }
    if (w.embedding_norm_weight.size() > 0)
        layerNorm(x, w.embedding_norm_weight, w.embedding_norm_bias, float(config.layer_norm_eps), x);
    return x;
}

// Self-attention of one block by the engine: Q, K, V, every head's weights, and the output
// projection concat Wo + bo.   x (T, C) -> trace.output (T, C), trace.probabilities H x (T, T).
// With a cache, x holds the new tokens only (n, C): their keys and values are appended to it and
// their queries attend to every key.   -> trace.output (n, C), trace.probabilities H x (n, T).
Result<AttentionTrace> attend(const ModelConfig& config, int layer, const LayerWeights& w, const Matrix& x,
                              KeyValueCache* cache, const ForwardIntervention* edit)
{
    AttentionOptions options;
    options.causal = config.causal;  // GPT-2: masked scores replaced, their weights exactly 0
    options.scale.mode = config.scale_attention ? ScaleSetting::Mode::Sqrt : ScaleSetting::Mode::None;
    options.detail = TraceDetail::Probabilities;
    options.weights_validated = true;  // AttentionWeights::fromParts / fromFused checked them at load
    if (edit)
        options.edit_head_outputs = edit->headOutputsHook(layer, config.headDim());
    auto trace = cache ? AttentionEngine::forwardAppending(x, w.attention, options, *cache)
                       : AttentionEngine::forward(x, w.attention, options);
    if (!trace)
        return Error{QStringLiteral("layer %1 attention: %2").arg(layer).arg(trace.error())};
    return trace;
}

// GPT2Block (pre-LN):  x = x + Attn(LN_1(x)),  x = x + MLP(LN_2(x)).   x (T, C), updated in place.
Result<AttentionTrace> preNormBlock(const ModelConfig& config, int layer, const LayerWeights& w, Matrix& x,
                                    Matrix* attention_input, KeyValueCache* cache, const ForwardIntervention* edit)
{
    const float eps = float(config.layer_norm_eps);
    Matrix attn_in(x.rows(), x.cols());  // (T, C): LN_1(x)
    layerNorm(x, w.attn_norm_weight, w.attn_norm_bias, eps, attn_in);
    auto attention = attend(config, layer, w, attn_in, cache, edit);
    if (!attention)
        return attention;
    if (edit)
        edit->apply(layer, InterventionSite::Attention, attention->output, config.headDim());
    x += attention->output;

    Matrix mlp_in(x.rows(), x.cols());  // (T, C): LN_2(x)
    layerNorm(x, w.mlp_norm_weight, w.mlp_norm_bias, eps, mlp_in);
    auto feed_forward = feedForward(config, w, mlp_in);  // (T, C)
    if (!feed_forward)
        return Error{feed_forward.error()};
    if (edit)
        edit->apply(layer, InterventionSite::Mlp, feed_forward.value(), config.headDim());
    x += *feed_forward;
    if (attention_input)
        *attention_input = std::move(attn_in);
    return attention;
}

// BertLayer, DistilBERT TransformerBlock (post-LN):  x = LN_1(x + Attn(x)),  x = LN_2(x + MLP(x)).
Result<AttentionTrace> postNormBlock(const ModelConfig& config, int layer, const LayerWeights& w, Matrix& x,
                                     Matrix* attention_input, KeyValueCache* cache, const ForwardIntervention* edit)
{
    const float eps = float(config.layer_norm_eps);
    if (attention_input)
        *attention_input = x;
    auto attention = attend(config, layer, w, x, cache, edit);
    if (!attention)
        return attention;
    if (edit)
        edit->apply(layer, InterventionSite::Attention, attention->output, config.headDim());
    x += attention->output;
    layerNorm(x, w.attn_norm_weight, w.attn_norm_bias, eps, x);  // LN_1(x + Attn(x))

    auto feed_forward = feedForward(config, w, x);  // (T, C)
    if (!feed_forward)
        return Error{feed_forward.error()};
    if (edit)
        edit->apply(layer, InterventionSite::Mlp, feed_forward.value(), config.headDim());
    feed_forward.value() += x;
    layerNorm(feed_forward.value(), w.mlp_norm_weight, w.mlp_norm_bias, eps, x);  // LN_2(x + MLP(x))
    return attention;
}

// [top rows of `earlier`; rows]: a matrix of a cached pass's first `reused` rows followed by the
// new tokens' rows.   earlier (>= reused, C), rows (n, C) -> (reused + n, C)
Matrix stacked(const Matrix& earlier, int reused, const Matrix& rows)
{
    Matrix all(reused + rows.rows(), rows.cols());
    all.topRows(reused) = earlier.topRows(reused);
    all.bottomRows(rows.rows()) = rows;
    return all;
}

// The selected layer's rows of a pass over new tokens completed with those of the earlier pass:
// the walkthrough sees the whole sequence, as from a full pass.
void stackSelectedLayer(const ModelRun& earlier, int reused, ModelRun& run)
{
    run.layer_input = stacked(earlier.layer_input, reused, run.layer_input);
    AttentionTrace& trace = run.layer_trace;
    const AttentionTrace& before = earlier.layer_trace;
    trace.q = stacked(before.q, reused, trace.q);
    trace.concat = stacked(before.concat, reused, trace.concat);
    trace.output = stacked(before.output, reused, trace.output);
    trace.query_offset = 0;                      // k and v already hold every key
    if (earlier.q_before_rotation.size() > 0) {  // rotary models: the new rows' Q and K before rotation
        run.q_before_rotation = stacked(earlier.q_before_rotation, reused, run.q_before_rotation);
        run.k_before_rotation = stacked(earlier.k_before_rotation, reused, run.k_before_rotation);
    }
}

// The residual entering block `layer` in `earlier`, a run over the same ids: its kept residual
// stream (pre-norm models), or its layer inputs (the BERT family, whose attention reads the block
// input).   -> (T, C)
Result<Matrix> residualEntering(const ModelConfig& config, const ModelRun& earlier, int layer)
{
    const bool post_norm =
        config.architecture == ModelArchitecture::Bert || config.architecture == ModelArchitecture::DistilBert;
    const std::vector<Matrix>& kept = post_norm ? earlier.layer_inputs : earlier.residual_stream;
    if (int(kept.size()) <= layer || kept[size_t(layer)].rows() != earlier.seqLen())
        return Error{QStringLiteral("the earlier pass did not keep the residual entering layer %1").arg(layer)};
    return kept[size_t(layer)];
}

// What a pass starting at block `first` keeps of the layers before it: copied from `earlier`.
void copyLayersBefore(int first, const ModelRun& earlier, ModelRun& run)
{
    for (int layer = 0; layer < first; ++layer) {
        run.attention.setLayer(layer, earlier.attention.layer(layer));
        if (size_t(layer) < earlier.layer_inputs.size())
            run.layer_inputs[size_t(layer)] = earlier.layer_inputs[size_t(layer)];
        if (size_t(layer) < run.residual_stream.size() && size_t(layer) < earlier.residual_stream.size())
            run.residual_stream[size_t(layer)] = earlier.residual_stream[size_t(layer)];
    }
    run.replaced_heads = earlier.replaced_heads;  // the earlier pass's own, if any, stay what they were
    run.replaced_heads.erase(std::remove_if(run.replaced_heads.begin(), run.replaced_heads.end(),
                                            [first](const ReplacedHead& r) { return r.layer >= first; }),
                             run.replaced_heads.end());
    if (run.selected_layer < first) {
        run.layer_input = earlier.layer_input;
        run.layer_trace = earlier.layer_trace;
        run.q_before_rotation = earlier.q_before_rotation;
        run.k_before_rotation = earlier.k_before_rotation;
    }
}

// The forward pass of tokens reused..T-1, the first `reused` taken from `earlier` (reused = 0,
// earlier = nullptr: the whole input). keys_values: one cache per layer, appended to; nullptr
// for a pass without a cache. The input has been checked.
// edit (a full pass, reused = 0, no cache): the pass's interventions; with edit->startLayer() > 0
// the pass begins there from `earlier`'s residual, and the layers before it are `earlier`'s.
Result<ModelRun> pass(const ModelConfig& config, const ModelWeights& weights, const std::vector<int>& token_ids,
                      int selected_layer, const ModelRun* earlier, int reused, std::vector<KeyValueCache>* keys_values,
                      bool keep_residual_stream, const ForwardIntervention* edit = nullptr)
{
    const int first_layer = edit ? edit->startLayer() : 0;
    const bool output_only = edit && edit->outputOnly();
    auto embeddings =
        first_layer > 0 ? residualEntering(config, *earlier, first_layer) : embed(config, weights, token_ids, reused);
    if (!embeddings)
        return Error{embeddings.error()};
    Matrix x = std::move(embeddings).value();  // (T - reused, C): the residual stream of the rows computed

    ModelRun run;
    run.token_ids = token_ids;
    run.selected_layer = selected_layer;
    run.num_kv_heads = config.num_kv_heads;
    const bool pre_norm = config.architecture == ModelArchitecture::Gpt2;
    const bool keep_residuals = keep_residual_stream && !output_only && (pre_norm || config.hasRotaryPositions());
    if (!output_only) {
        run.attention = AttentionMaps(config.num_layers, config.num_heads, int(token_ids.size()), config.causal);
        run.attention.setSlidingWindow(config.sliding_window);
        if (reused > 0)
            run.attention.copyRows(earlier->attention, reused);
        run.layer_inputs.resize(size_t(config.num_layers));  // L x (T - reused, C) until stacked below
        if (keep_residuals)
            run.residual_stream.resize(size_t(config.num_layers));  // L x (T - reused, C) until stacked below
        if (first_layer > 0)
            copyLayersBefore(first_layer, *earlier, run);
    }
    const RotaryEmbedding rotary =
        config.rotary_dim > 0 ? RotaryEmbedding(config, int(token_ids.size())) : RotaryEmbedding();
    for (int layer = first_layer; layer < config.num_layers; ++layer) {
        Matrix* attention_input = output_only ? nullptr : &run.layer_inputs[size_t(layer)];
        KeyValueCache* cache = keys_values ? &(*keys_values)[size_t(layer)] : nullptr;
        const LayerWeights& w = weights.layers[size_t(layer)];
        const ForwardIntervention* layer_edit = edit && edit->acts(layer) ? edit : nullptr;
        if (layer_edit)
            layer_edit->apply(layer, InterventionSite::Residual, x, config.headDim());
        if (keep_residuals)
            run.residual_stream[size_t(layer)] = x;
        const bool selected = layer == selected_layer && !output_only;
        const LayerCapture capture = selected
                                         ? LayerCapture{attention_input, &run.q_before_rotation, &run.k_before_rotation}
                                         : LayerCapture{attention_input};
        auto trace = config.isLlamaFamily()
                         ? DecoderBlocks::llama(config, layer, w, rotary, x, capture, cache, layer_edit)
                     : config.architecture == ModelArchitecture::GptNeox
                         ? DecoderBlocks::gptNeox(config, layer, w, rotary, x, capture, cache, layer_edit)
                     : pre_norm ? preNormBlock(config, layer, w, x, attention_input, cache, layer_edit)
                                : postNormBlock(config, layer, w, x, attention_input, cache, layer_edit);
        if (!trace)
            return Error{trace.error()};
        if (output_only)
            continue;
        if (layer_edit)
            for (int head : layer_edit->replacedHeads(layer))
                run.replaced_heads.push_back(
                    {layer, head, trace->concat.middleCols(Eigen::Index(head) * config.headDim(), config.headDim())});
        if (reused > 0)
            run.attention.setRows(layer, reused, trace->probabilities);
        else
            run.attention.setLayer(layer, std::move(trace->probabilities));
        if (selected) {
            run.layer_input = *attention_input;
            trace->probabilities.clear();
            run.layer_trace = std::move(trace).value();
        }
    }
    if (config.isLlamaFamily())
        rmsNorm(x, weights.final_norm_weight, float(config.layer_norm_eps), x);
    else if (weights.final_norm_weight.size() > 0)
        layerNorm(x, weights.final_norm_weight, weights.final_norm_bias, float(config.layer_norm_eps), x);
    run.last_hidden_state = std::move(x);
    if (reused > 0) {
        run.last_hidden_state = stacked(earlier->last_hidden_state, reused, run.last_hidden_state);
        for (int layer = 0; layer < config.num_layers; ++layer)
            run.layer_inputs[size_t(layer)] =
                stacked(earlier->layer_inputs[size_t(layer)], reused, run.layer_inputs[size_t(layer)]);
        for (size_t layer = 0; layer < run.residual_stream.size(); ++layer)
            run.residual_stream[layer] = stacked(earlier->residual_stream[layer], reused, run.residual_stream[layer]);
        stackSelectedLayer(*earlier, reused, run);
    }
    return run;
}

// The layers over tokens first..T-1 only, their keys and values appended to keys_values (which
// holds tokens 0..first-1): the new rows of everything, nothing copied from before.
Result<AppendedRows> appendedPass(const ModelConfig& config, const ModelWeights& weights,
                                  const std::vector<int>& token_ids, int first, int selected_layer,
                                  std::vector<KeyValueCache>& keys_values, bool keep_residual_stream,
                                  const RotaryEmbedding& rotary)
{
    auto embeddings = embed(config, weights, token_ids, first);
    if (!embeddings)
        return Error{embeddings.error()};
    Matrix x = std::move(embeddings).value();  // (n, C): the residual stream of the new rows

    AppendedRows rows;
    rows.first = first;
    rows.attention.resize(size_t(config.num_layers));
    rows.layer_inputs.resize(size_t(config.num_layers));
    const bool pre_norm = config.architecture == ModelArchitecture::Gpt2;
    if (keep_residual_stream && (pre_norm || config.hasRotaryPositions()))
        rows.residual_stream.resize(size_t(config.num_layers));
    for (int layer = 0; layer < config.num_layers; ++layer) {
        Matrix* attention_input = &rows.layer_inputs[size_t(layer)];
        KeyValueCache* cache = &keys_values[size_t(layer)];
        const LayerWeights& w = weights.layers[size_t(layer)];
        if (!rows.residual_stream.empty())
            rows.residual_stream[size_t(layer)] = x;
        const LayerCapture capture =
            layer == selected_layer ? LayerCapture{attention_input, &rows.q_before_rotation, &rows.k_before_rotation}
                                    : LayerCapture{attention_input};
        auto trace = config.isLlamaFamily() ? DecoderBlocks::llama(config, layer, w, rotary, x, capture, cache)
                     : config.architecture == ModelArchitecture::GptNeox
                         ? DecoderBlocks::gptNeox(config, layer, w, rotary, x, capture, cache)
                         : preNormBlock(config, layer, w, x, attention_input, cache, nullptr);
        if (!trace)
            return Error{trace.error()};
        rows.attention[size_t(layer)] = std::move(trace->probabilities);
        if (layer == selected_layer) {
            trace->probabilities.clear();
            rows.layer_trace = std::move(trace).value();
            rows.layer_trace.k = Matrix();  // every key's: the cache holds them
            rows.layer_trace.v = Matrix();
        }
    }
    if (config.isLlamaFamily())
        rmsNorm(x, weights.final_norm_weight, float(config.layer_norm_eps), x);
    else if (weights.final_norm_weight.size() > 0)
        layerNorm(x, weights.final_norm_weight, weights.final_norm_bias, float(config.layer_norm_eps), x);
    rows.last_hidden_state = std::move(x);
    return rows;
}

}  // namespace

Result<AppendedRows> TransformerForward::appendTokens(const ModelConfig& config, const ModelWeights& weights,
                                                      const std::vector<int>& token_ids, int first, int selected_layer,
                                                      std::vector<KeyValueCache>& keys_values,
                                                      bool keep_residual_stream, const RotaryEmbedding* rotary)
{
    if (Status s = checkInput(config, token_ids, selected_layer); !s)
        return Error{s.error()};
    // A bidirectional model's earlier rows change with every new token: they cannot be kept.
    if (!config.causal || first < 0 || first >= int(token_ids.size()) ||
        (first > 0 && int(keys_values.size()) != config.num_layers))
        return Error{QStringLiteral("the cached keys do not fit this input (%1 tokens cached of %2)")
                         .arg(first)
                         .arg(token_ids.size())};
    keys_values.resize(size_t(config.num_layers));
    for (KeyValueCache& layer : keys_values) {
        if (layer.length() < first) {
            keys_values.clear();
            return Error{QStringLiteral("the cache holds %1 tokens' keys, fewer than the %2 cached")
                             .arg(layer.length())
                             .arg(first)};
        }
        layer.truncate(first);
    }
    const int length = int(token_ids.size());
    if (rotary && config.rotary_dim > 0 && rotary->positions() < length) {
        keys_values.clear();
        return Error{QStringLiteral("the rotary table has %1 positions, fewer than the %2 tokens")
                         .arg(rotary->positions())
                         .arg(length)};
    }
    const RotaryEmbedding own = !rotary && config.rotary_dim > 0 ? RotaryEmbedding(config, length) : RotaryEmbedding();
    auto rows = appendedPass(config, weights, token_ids, first, selected_layer, keys_values, keep_residual_stream,
                             rotary ? *rotary : own);
    if (!rows)
        keys_values.clear();
    return rows;
}

QString TransformerForward::positionsKey(const ModelConfig& config)
{
    return config.architecture == ModelArchitecture::Gpt2 ? QStringLiteral("n_positions")
                                                          : QStringLiteral("max_position_embeddings");
}

Status TransformerForward::checkInput(const ModelConfig& config, const std::vector<int>& token_ids, int selected_layer)
{
    const std::int64_t seq_len = std::int64_t(token_ids.size());
    if (seq_len == 0)
        return Error{QStringLiteral("no tokens: the input is empty")};
    if (!config.hasRotaryPositions() && seq_len > config.max_positions)
        return Error{QStringLiteral("%1 tokens are more than the model's %2 positions (%3)")
                         .arg(seq_len)
                         .arg(config.max_positions)
                         .arg(positionsKey(config))};
    for (size_t i = 0; i < token_ids.size(); ++i)
        if (token_ids[i] < 0 || token_ids[i] >= config.vocab_size)
            return Error{QStringLiteral("token id %1 (position %2) is outside the vocabulary (ids 0 to %3)")
                             .arg(token_ids[i])
                             .arg(i)
                             .arg(config.vocab_size - 1)};
    if (selected_layer < 0 || selected_layer >= config.num_layers)
        return Error{QStringLiteral("layer %1 is out of range, the model has layers 0 to %2")
                         .arg(selected_layer)
                         .arg(config.num_layers - 1)};
    const std::int64_t kept = std::int64_t(config.num_layers) * config.num_heads * seq_len * seq_len;
    if (kept > kMaxKeptAttention)
        return Error{QStringLiteral("%1 tokens are too many to keep the attention of %2 layers x %3 heads "
                                    "(%4 weights, limit %5)")
                         .arg(seq_len)
                         .arg(config.num_layers)
                         .arg(config.num_heads)
                         .arg(kept)
                         .arg(kMaxKeptAttention)};
    return {};
}

Result<ModelRun> TransformerForward::run(const ModelConfig& config, const ModelWeights& weights,
                                         const std::vector<int>& token_ids, int selected_layer,
                                         bool keep_residual_stream)
{
    if (Status s = checkInput(config, token_ids, selected_layer); !s)
        return Error{s.error()};
    return pass(config, weights, token_ids, selected_layer, nullptr, 0, nullptr, keep_residual_stream);
}

Result<ModelRun> TransformerForward::runIntervened(const ModelConfig& config, const ModelWeights& weights,
                                                   const std::vector<int>& token_ids, int selected_layer,
                                                   const ForwardIntervention& intervention, const ModelRun* earlier,
                                                   bool keep_residual_stream)
{
    if (Status s = checkInput(config, token_ids, selected_layer); !s)
        return Error{s.error()};
    QString why;
    if (!intervention.fits(config.num_layers, config.num_heads, config.headDim(), config.hidden_size,
                           int(token_ids.size()), &why))
        return Error{why};
    if (intervention.startLayer() > 0 && (!earlier || earlier->token_ids != token_ids))
        return Error{QStringLiteral("a pass starting at layer %1 needs an earlier run of the same tokens")
                         .arg(intervention.startLayer())};
    return pass(config, weights, token_ids, selected_layer, earlier, 0, nullptr, keep_residual_stream, &intervention);
}

Result<ModelRun> TransformerForward::runAppending(const ModelConfig& config, const ModelWeights& weights,
                                                  const std::vector<int>& token_ids, int selected_layer,
                                                  const ModelRun* earlier, int reused,
                                                  std::vector<KeyValueCache>& keys_values, bool keep_residual_stream)
{
    if (Status s = checkInput(config, token_ids, selected_layer); !s)
        return Error{s.error()};
    // What the caller (TransformerModel::forward) has ensured; a slip here would give wrong maps.
    const bool reusable =
        config.causal && reused >= 0 && reused < int(token_ids.size()) &&
        (earlier ? earlier->selected_layer == selected_layer && earlier->seqLen() >= reused &&
                       std::equal(token_ids.begin(), token_ids.begin() + reused, earlier->token_ids.begin()) &&
                       int(keys_values.size()) == config.num_layers &&
                       (!keep_residual_stream || config.architecture == ModelArchitecture::Bert ||
                        config.architecture == ModelArchitecture::DistilBert ||
                        int(earlier->residual_stream.size()) == config.num_layers)
                 : reused == 0);
    if (!reusable)
        return Error{QStringLiteral("the cached pass does not fit this input (%1 tokens reused of %2)")
                         .arg(reused)
                         .arg(token_ids.size())};
    keys_values.resize(size_t(config.num_layers));
    for (KeyValueCache& layer : keys_values) {
        if (layer.length() < reused)
            return Error{QStringLiteral("the cache holds %1 tokens' keys, fewer than the %2 reused")
                             .arg(layer.length())
                             .arg(reused)};
        layer.truncate(reused);
    }
    auto run = pass(config, weights, token_ids, selected_layer, earlier, reused, &keys_values, keep_residual_stream);
    if (!run)
        keys_values.clear();
    return run;
}

}  // namespace attn
