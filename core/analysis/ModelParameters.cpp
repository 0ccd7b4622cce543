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
    }
    return counts;
}

}  // namespace attn
