#pragma once

#include "core/model/ModelConfig.h"

#include <QJsonObject>

namespace attn {

// transformers' LlamaConfig, Qwen2Config and MistralConfig (`architecture` says which): their
// defaults, num_key_value_heads (absent or null: num_attention_heads), rope_theta and rope_scaling,
// Qwen2's q/k/v biases, Mistral's sliding_window. Options that would make transformers compute
// something else are refused, naming the key.
Result<ModelConfig> llamaFamilyConfig(const QJsonObject& object, ModelArchitecture architecture);

// transformers' GPTNeoXConfig (Pythia): rotary_pct, rotary_emb_base, use_parallel_residual,
// attention_bias, untied embed_out by default.
Result<ModelConfig> gptNeoxConfig(const QJsonObject& object);

}  // namespace attn
