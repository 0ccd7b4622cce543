#include "core/analysis/ModelParameters.h"

namespace attn {

ModelParameterCounts ModelParameterCounts::of(const ModelConfig& config)
{
    const std::int64_t width = config.hidden_size;             // C
    const std::int64_t inner = config.intermediate_size;       // I
    const std::int64_t layer_norm = 2 * width;                 // weight and bias
    const std::int64_t linear_square = width * width + width;  // (C, C) + C
    ModelParameterCounts counts;
    counts.word_embeddings = std::int64_t(config.vocab_size) * width;
    counts.position_embeddings = std::int64_t(config.max_positions) * width;
    counts.token_type_embeddings = std::int64_t(config.type_vocab_size) * width;
    counts.attention_norm = layer_norm;
    counts.attention = 4 * linear_square;  // query, key, value, output (GPT-2's c_attn is the first three fused)
    counts.mlp_norm = layer_norm;
    counts.mlp = (width * inner + inner) + (inner * width + width);
    counts.num_layers = config.num_layers;
    switch (config.architecture) {
        case ModelArchitecture::Gpt2:
            counts.final_norm = layer_norm;  // ln_f
            break;
        case ModelArchitecture::Bert:
            counts.embedding_norm = layer_norm;
            counts.pooler = linear_square;
            break;
        case ModelArchitecture::DistilBert:
            counts.embedding_norm = layer_norm;
            break;
        case ModelArchitecture::Llama:
        case ModelArchitecture::Qwen2:
        case ModelArchitecture::Mistral: {
            // RMSNorm has a weight only; Wq, Wo (C, C), Wk, Wv (C, H_kv D); SwiGLU gate, up, down without biases.
            const std::int64_t kv_width = config.kvDim();
            const std::int64_t qkv_bias = config.qkv_bias ? width + 2 * kv_width : 0;
            counts.position_embeddings = 0;  // rotary: no table
            counts.attention_norm = counts.mlp_norm = counts.final_norm = width;
            counts.attention = 2 * width * width + 2 * width * kv_width + qkv_bias + (config.out_bias ? width : 0);
            counts.mlp = 3 * width * inner;
            break;
        }
        case ModelArchitecture::GptNeox:
            // query_key_value (C, 3C) and dense (C, C), with biases when attention_bias (the default)
            counts.position_embeddings = 0;
            counts.attention = 4 * width * width + (config.qkv_bias ? 3 * width : 0) + (config.out_bias ? width : 0);
            counts.final_norm = layer_norm;
            break;
    }
    if (config.hasRotaryPositions() && !config.tie_word_embeddings)
        counts.output_head = std::int64_t(config.vocab_size) * width;
    return counts;
}

}  // namespace attn
