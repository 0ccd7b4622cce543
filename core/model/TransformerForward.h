#pragma once

#include "core/attention/KeyValueCache.h"
#include "core/model/AppendedRows.h"
#include "core/model/ForwardIntervention.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelWeights.h"
#include "core/model/RotaryEmbedding.h"

#include <vector>

namespace attn {

// The forward pass of a whole model, as transformers computes it (GPT2Model, BertModel,
// DistilBertModel; tests/fixtures/models/reference_models.py is a line-by-line PyTorch port), in
// float32, for one unpadded sequence:
//   GPT-2:       x = wte[ids] + wpe[0..T)
//                per block: x = x + Attn(LN_1(x)),  x = x + MLP(LN_2(x))   (causal attention)
//                last_hidden_state = LN_f(x)
//   BERT:        x = LN(word[ids] + type[0] + pos[0..T))
//   DistilBERT:  x = LN(word[ids] + pos[0..T))
//                per block: x = LN_1(x + Attn(x)),  x = LN_2(x + MLP(x))
//   MLP(h) = act(h W_in + b_in) W_out + b_out.
//   Llama family, GPT-NeoX: x = word[ids], the blocks of DecoderBlocks.h (rotary positions),
//                last_hidden_state = RMSNorm(x) (Llama family), LN_f(x) (GPT-NeoX)
// Every layer's attention is computed by AttentionEngine and its (H, T, T) weights and its input (T, C) kept.
class TransformerForward {
public:
    // Refuses, before anything is allocated, ids outside the vocabulary, zero tokens or more than
    // the learned positions the model has (rotary models take any length), a selected layer that does not exist, and attention maps that
    // could not be kept in memory. A cache's keys and values (2 L T C floats) need no limit of
    // their own: they are fewer than the maps (L H T (T + 1) / 2) once T >= 4 C / H, and fewer than
    // the block weights (12 L C^2) below that.
    static Status checkInput(const ModelConfig& config, const std::vector<int>& token_ids, int selected_layer);

    // keep_residual_stream: also keep ModelRun::residual_stream (pre-norm models; L T C floats
    // more), what the logit lens reads.
    static Result<ModelRun> run(const ModelConfig& config, const ModelWeights& weights,
                                const std::vector<int>& token_ids, int selected_layer = 0,
                                bool keep_residual_stream = false);

    // run() for a causal model, computing only tokens reused.. : the first `reused` tokens are
    // those of `earlier` (same ids, same selected layer; reused < T), whose keys and values
    // keys_values holds, one KeyValueCache per layer (rows past `reused` are dropped). Their
    // attention rows, last hidden state rows and selected layer's rows are copied from `earlier`;
    // the new tokens' queries attend to every key, and their keys and values are appended to
    // keys_values. earlier == nullptr: reused is 0, keys_values is filled from nothing.
    // On an error keys_values is left cleared. keep_residual_stream: as run(); `earlier` must then
    // have kept its own.
    static Result<ModelRun> runAppending(const ModelConfig& config, const ModelWeights& weights,
                                         const std::vector<int>& token_ids, int selected_layer, const ModelRun* earlier,
                                         int reused, std::vector<KeyValueCache>& keys_values,
                                         bool keep_residual_stream = false);

    // The rows of tokens first..T-1 of a causal model over keys_values, which holds the keys and
    // values of tokens 0..first-1 (one KeyValueCache per layer; rows past `first` are dropped) and
    // gets the new tokens' appended: runAppending without the earlier rows, so that a step costs
    // only its own rows (generation: one token at a time). rotary: the cosines and sines of at
    // least T positions (rotary models; built once for a whole generation), or nullptr to build
    // them here. Checks as runAppending (token_ids whole, against checkInput). On an error
    // keys_values is left cleared.
    static Result<AppendedRows> appendTokens(const ModelConfig& config, const ModelWeights& weights,
                                             const std::vector<int>& token_ids, int first, int selected_layer,
                                             std::vector<KeyValueCache>& keys_values, bool keep_residual_stream,
                                             const RotaryEmbedding* rotary = nullptr);
    // run() changed by `intervention` (replacements and recordings at the sites of each layer;
    // ForwardIntervention.h). With intervention.startLayer() = l > 0 the blocks before l are not
    // computed: block l begins from the residual entering it in `earlier` (a run over the same ids
    // that kept it: residual_stream for pre-norm models, layer_inputs for the BERT family), and
    // the layers before l (attention, layer inputs, residual stream) are copied from `earlier`.
    // With intervention.outputOnly() only token_ids and last_hidden_state are filled (a scan).
    // The run's replaced_heads hold the z each replaced head got.
    static Result<ModelRun> runIntervened(const ModelConfig& config, const ModelWeights& weights,
                                          const std::vector<int>& token_ids, int selected_layer,
                                          const ForwardIntervention& intervention, const ModelRun* earlier = nullptr,
                                          bool keep_residual_stream = false);

    // The config key that bounds the number of tokens ("n_positions", "max_position_embeddings").
    static QString positionsKey(const ModelConfig& config);

    static constexpr std::int64_t kMaxKeptAttention = std::int64_t(1) << 30;  // floats: 4 GiB of maps
};

}  // namespace attn
