#pragma once

#include "core/attention/AttentionWeights.h"
#include "core/model/ModelFolder.h"
#include "core/model/WeightMatrix.h"

#include <optional>
#include <vector>

namespace attn {

// One Transformer block's weights in math layout (y = x W + b), C = hidden size, I = intermediate.
struct LayerWeights {
    AttentionWeights attention;  // the engine's: [Wq | Wk | Wv] (C, C + 2 kv_dim), biases, Wo (C, C), bo (C)
    RowVector attn_norm_weight;  // (C): GPT-2 ln_1 (before attention), BERT-family after it, Llama RMSNorm
    RowVector attn_norm_bias;    // (C), empty for RMSNorm
    WeightMatrix mlp_gate;       // (C, I): SwiGLU's gate (Llama family); empty otherwise
    WeightMatrix mlp_in;         // (C, I)
    RowVector mlp_in_bias;       // (I)
    WeightMatrix mlp_out;        // (I, C)
    RowVector mlp_out_bias;      // (C)
    RowVector mlp_norm_weight;   // (C): GPT-2 ln_2 (before the MLP), BERT-family after it
    RowVector mlp_norm_bias;     // (C)
};

// The LM head (GPT-2) or MLM head (BERT, DistilBERT): logits = decoder(norm(act(h Wt + bt))) + b.
struct PredictionHeadWeights {
    WeightMatrix transform;    // (C, C), or empty (GPT-2 has no transform)
    RowVector transform_bias;  // (C)
    RowVector norm_weight;     // (C), or empty
    RowVector norm_bias;       // (C)
    WeightMatrix decoder;      // (V, C), or empty when tied: the word embeddings are used
    RowVector decoder_bias;    // (V), or empty (GPT-2)
};

struct ModelWeights {
    WeightMatrix word_embeddings;        // (V, C)
    WeightMatrix position_embeddings;    // (P, C); empty with rotary positions
    WeightMatrix token_type_embeddings;  // (types, C), BERT; empty otherwise
    RowVector embedding_norm_weight;     // (C), BERT-family; empty for GPT-2
    RowVector embedding_norm_bias;
    std::vector<LayerWeights> layers;
    RowVector final_norm_weight;  // (C), GPT-2 ln_f, Llama norm, GPT-NeoX final_layer_norm; empty otherwise
    RowVector final_norm_bias;
    std::optional<PredictionHeadWeights> head;
    QString head_missing;  // why there is no head, when there is none

    const WeightMatrix& decoder() const { return head && !head->decoder.isEmpty() ? head->decoder : word_embeddings; }

    // Reads every tensor the architecture's table (TensorNameTable.h) lists from the folder's
    // mapped files: names with or without the prefix, old LayerNorm.gamma/beta spellings; F32
    // tensors already in the math layout are used in place, the others converted to float32
    // (and the pages of the converted ones given back), the MLPs' bfloat16 ones moved into tiles
    // one by one as they are read (moveMlpsIntoTiles). Messages name the tensor.
    static Result<ModelWeights> load(const ModelFolder& folder);

    // The MLPs' converted bfloat16 weights into the tile layout, where the processor has tiles
    // (WeightMatrix::moveIntoTiles): the MLPs are most of a pass of the Llama family.
    void moveMlpsIntoTiles();
};

}  // namespace attn
