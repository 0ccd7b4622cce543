#pragma once

#include "core/attention/AttentionTrace.h"
#include "core/attention/KeyValueCache.h"
#include "core/model/ForwardIntervention.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelWeights.h"
#include "core/model/RotaryEmbedding.h"

namespace attn {

// What a walkthrough of one layer keeps from it (null pointers: nothing).
struct LayerCapture {
    Matrix* attention_input = nullptr;    // (T, C): what the attention reads (after its norm)
    Matrix* q_before_rotation = nullptr;  // (T, H * D)
    Matrix* k_before_rotation = nullptr;  // (T, Hkv * D)
};

// The blocks of the decoders with rotary positions, as transformers computes them, x (T, C)
// updated in place; the attention (causal, rotated Q and K, grouped-query) by AttentionEngine.
//   Llama family (LlamaDecoderLayer, Qwen2's, Mistral's):
//     x = x + Attn(RMSNorm_1(x)),  x = x + MLP(RMSNorm_2(x)),  MLP(h) = (act(h W_gate) * (h W_up)) W_down
//   GPT-NeoX (GPTNeoXLayer), MLP(h) = act(h W_in + b_in) W_out + b_out:
//     use_parallel_residual:  x = x + Attn(LN_1(x)) + MLP(LN_2(x))
//     otherwise:              x = x + Attn(LN_1(x)),  x = x + MLP(LN_2(x))
// With a cache, x holds the new tokens only (n, C), the first at position cache->length(): their
// rotated keys and values are appended to it and their queries attend to every key (sliding
// window included); the captured matrices are the new rows only. `edit`, when not null, replaces
// or records the attention output, the MLP output and the heads' z (ForwardIntervention).
struct DecoderBlocks {
    static Result<AttentionTrace> llama(const ModelConfig& config, int layer, const LayerWeights& w,
                                        const RotaryEmbedding& rotary, Matrix& x, const LayerCapture& capture,
                                        KeyValueCache* cache = nullptr, const ForwardIntervention* edit = nullptr);
    static Result<AttentionTrace> gptNeox(const ModelConfig& config, int layer, const LayerWeights& w,
                                          const RotaryEmbedding& rotary, Matrix& x, const LayerCapture& capture,
                                          KeyValueCache* cache = nullptr, const ForwardIntervention* edit = nullptr);
};

}  // namespace attn
