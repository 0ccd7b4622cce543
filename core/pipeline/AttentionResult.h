#pragma once

#include "core/attention/AttentionTrace.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/RunSettings.h"

#include <memory>
#include <mutex>
#include <optional>

namespace attn {

// One complete computation as every view shows it: what was asked, what went in, what came out.
struct AttentionResult {
    RunSettings config;
    AttentionInput input;     // the queries' tokens and X (query_len, input_dim)
    AttentionInput kv_input;  // cross-attention: the keys' and values' tokens and X (key_len, input_dim); empty = self
    AttentionTrace trace;     // every intermediate of the forward pass
    int output_dim = 0;
    bool has_output_projection = true;
    std::int64_t parameter_count = 0;
    QString weights_description;  // "random (seed 0)", "identity", "model.safetensors (gpt2, layer 1 of 12)"
    int layer_count = 1;
    // What the input rows X are when they are not embeddings plus sinusoidal positions (a whole
    // model's layer: its hidden state, with the model's own positions); empty otherwise.
    QString input_formula;
    double compute_ms = 0.0;  // wall time of the forward pass
    // Keys hidden from the views (AttentionDisplay::withHiddenKeys): their weights are 0 and each
    // row is renormalised over the others; the views mark them. Empty = none hidden.
    std::vector<bool> hidden_keys;
    // The heads' matrices are value-weighted attention ||A_ij f^h(x_j)|| (AttentionDisplay::
    // withValueNorms), not probabilities: rows do not sum to 1 and the views say "norms".
    bool value_norms = false;
    // Rotary positions (a Llama-family or GPT-NeoX layer): the first rotary_dim features of each
    // head were turned by position x inverse_frequencies[i] (rotate_half pairs (i, i + R/2));
    // Q (T, H D) and K (T, H_kv D) as they were before, trace.q and trace.k being after. 0: none.
    int rotary_dim = 0;
    std::vector<float> inverse_frequencies;  // (R / 2)
    Matrix q_before_rotation;                // (T, H D)
    Matrix k_before_rotation;                // (T, H_kv D)
    // What the views derive from every head at a cost of a pass over a long input's heads (the
    // percentile of its weights), computed once off the GUI thread and kept with the result:
    // copies share it; withHiddenKeys, whose weights differ, gives its copy its own.
    struct Derived {
        std::mutex mutex;
        std::optional<double> percentile_top;  // ColorScales::kPercentile of the weights the views show
    };
    std::shared_ptr<Derived> derived = std::make_shared<Derived>();

    int seqLen() const { return int(input.tokens.size()); }  // the number of queries
    bool isCross() const { return !kv_input.tokens.isEmpty(); }
    const AttentionInput& keyInput() const { return isCross() ? kv_input : input; }
    const TokenList& keyTokens() const { return keyInput().tokens; }
    int keyLen() const { return int(keyTokens().size()); }
    int numHeads() const { return trace.num_heads; }
};

}  // namespace attn
