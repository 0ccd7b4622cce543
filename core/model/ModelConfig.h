#pragma once

#include "core/base/Result.h"
#include "core/ops/Activation.h"

#include <QByteArray>
#include <QString>

namespace attn {

// The architectures a model folder can hold today (config.json "model_type").
enum class ModelArchitecture { Gpt2, Bert, DistilBert };

// What config.json says about a model, resolved as the transformers configuration classes
// (GPT2Config, BertConfig, DistilBertConfig) resolve it: their attribute_map aliases (an alias given in the file wins, as PretrainedConfig's setter makes it)
// and their defaults for every key that does not set a tensor shape. Keys that set a shape must be
// present; options that would make transformers compute something this program does not are
// refused.
struct ModelConfig {
    ModelArchitecture architecture = ModelArchitecture::Gpt2;
    QString model_type;  // "gpt2", "bert", "distilbert"

    int num_layers = 0;         // GPT-2 n_layer, BERT num_hidden_layers, DistilBERT n_layers
    int num_heads = 0;          // n_head, num_attention_heads, n_heads
    int num_kv_heads = 0;       // = num_heads for these architectures
    int hidden_size = 0;        // n_embd, hidden_size, dim
    int intermediate_size = 0;  // n_inner (null: 4 x n_embd), intermediate_size, hidden_dim
    int vocab_size = 0;
    int max_positions = 0;    // n_positions, max_position_embeddings
    int type_vocab_size = 0;  // BERT token types; 0 for the others

    double layer_norm_eps = 1e-5;  // GPT-2 layer_norm_epsilon, BERT layer_norm_eps, DistilBERT 1e-12
    Activation activation = Activation::GeluTanh;
    bool causal = false;                // GPT-2: every query sees only the keys up to itself
    bool scale_attention = true;        // GPT-2 scale_attn_weights: scores / sqrt(head_dim), else unscaled
    bool tie_word_embeddings = true;    // the LM / MLM head's output matrix is the word embeddings
    bool sinusoidal_positions = false;  // DistilBERT sinusoidal_pos_embds

    int headDim() const { return num_heads > 0 ? hidden_size / num_heads : 0; }

    // Parses the text of config.json. Messages are reasons, naming the key ("n_head: ...").
    static Result<ModelConfig> fromJson(const QByteArray& json);
};

}  // namespace attn
