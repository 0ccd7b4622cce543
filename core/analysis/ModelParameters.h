#pragma once

#include "core/model/ModelConfig.h"

#include <QList>
#include <QString>

#include <cstdint>

namespace attn {

// The parameters of a whole model, from its config alone, counted as PyTorch counts them
// (sum of numel over the base model's parameters; buffers such as GPT-2's causal mask are not
// parameters). The base model is what this program runs: GPT2Model, BertModel without its pooler
// (the contract's last_hidden_state is the last layer's output), DistilBertModel. LM / MLM heads
// are not counted (GPT-2's is the tied word embeddings anyway); an untied output matrix (Llama
// family lm_head, GPT-NeoX embed_out) is counted apart, in withOutputHead().
// GPT-2 small: 124,439,808. bert-base-uncased: 108,891,648, and 109,482,240 with the pooler
// (the figure usually quoted for BertModel); distilbert-base-uncased: 66,362,880.
// Grouped-query attention: k_proj and v_proj are (C, H_kv D), not (C, C). The published counts,
// which include an untied head: SmolLM2-135M 134,515,008; Qwen2.5-0.5B 494,032,768;
// TinyLlama-1.1B 1,100,048,384; Pythia-70m 70,426,624.
struct ModelParameterCounts {
    std::int64_t word_embeddings = 0;        // (V, C)
    std::int64_t position_embeddings = 0;    // (P, C); DistilBERT's sinusoidal table is a parameter too
    std::int64_t token_type_embeddings = 0;  // (token types, C), BERT only
    std::int64_t embedding_norm = 0;         // LayerNorm after the embeddings (BERT family): 2C

    // One block (every block has the same shapes).
    std::int64_t attention_norm = 0;  // GPT-2 ln_1; BERT attention.output.LayerNorm: 2C
    std::int64_t attention = 0;       // Wq, Wk, Wv (C, C) with biases, and the output projection: 4C² + 4C;
                                      // grouped-query: Wk, Wv (C, H_kv D)
    std::int64_t mlp_norm = 0;        // GPT-2 ln_2; BERT output.LayerNorm: 2C
    std::int64_t mlp = 0;             // (C, I) + I and (I, C) + C
    int num_layers = 0;

    std::int64_t final_norm = 0;   // GPT-2 ln_f: 2C
    std::int64_t pooler = 0;       // BERT's pooler (C, C) + C: in its checkpoints, not computed here
    std::int64_t output_head = 0;  // an untied LM head (V, C): lm_head, embed_out; 0 when tied

    std::int64_t embeddings() const
    {
        return word_embeddings + position_embeddings + token_type_embeddings + embedding_norm;
    }
    std::int64_t perLayer() const { return attention_norm + attention + mlp_norm + mlp; }
    std::int64_t layers() const { return perLayer() * num_layers; }
    // The base model as run: embeddings, every block, the final norm (no pooler).
    std::int64_t total() const { return embeddings() + layers() + final_norm; }
    // The causal LM as published (LlamaForCausalLM, GPTNeoXForCausalLM): the base model and its untied head.
    std::int64_t withOutputHead() const { return total() + output_head; }

    static ModelParameterCounts of(const ModelConfig& config);
};

}  // namespace attn
