#pragma once

#include "core/attention/AttentionTrace.h"
#include "core/base/Tensor.h"
#include "core/model/AttentionMaps.h"
#include "core/model/ForwardIntervention.h"

#include <vector>

namespace attn {

// Everything one forward pass of a whole model gives: the attention of every layer and head,
// the base model's output, and what a walkthrough of one selected layer needs.
struct ModelRun {
    std::vector<int> token_ids;  // (T)
    AttentionMaps attention;     // (L, H, T, T), rows sum to 1 (unless value_norms)
    // `attention` holds value-weighted attention ||A_ij f^h(x_j)|| (AttentionDisplay::
    // weighMaps): rows do not sum to 1 and the views say "norms".
    bool value_norms = false;
    Matrix last_hidden_state;    // (T, C): after ln_f (GPT-2), the last layer's output (BERT-family)

    int num_kv_heads = 0;  // key/value heads: query head h uses h / (H / num_kv_heads)
    // Every layer's attention input, L x (T, C) (after ln_1 for GPT-2): any layer's Q, K, V can be
    // made again from it with one attention layer, without running the layers before it.
    std::vector<Matrix> layer_inputs;
    // Pre-norm models (GPT-2, the Llama family, GPT-NeoX), when the pass was asked to keep it:
    // every block's input, L x (T, C), i.e. transformers' hidden_states[0..L-1] (hidden_states[L]
    // is last_hidden_state, after the final norm). Empty otherwise; the BERT family's block
    // inputs are layer_inputs already.
    std::vector<Matrix> residual_stream;

    int selected_layer = 0;
    Matrix layer_input;          // (T, C): what the selected layer's attention reads (after ln_1 for GPT-2)
    AttentionTrace layer_trace;  // its Q, K, V (T, C), head outputs and output; its weights are in
                                 // attention.layer(selected_layer), not repeated here
    // Rotary models: the selected layer's Q (T, H * D) and K (T, Hkv * D) before the rotation
    // (layer_trace.q and .k are after it); empty without rotary positions.
    Matrix q_before_rotation;
    Matrix k_before_rotation;
    // A pass with interventions (TransformerForward::runIntervened): the heads whose z it replaced
    // and the z they got; empty otherwise.
    std::vector<ReplacedHead> replaced_heads;

    int seqLen() const { return int(token_ids.size()); }
    int numLayers() const { return attention.numLayers(); }
};

}  // namespace attn
