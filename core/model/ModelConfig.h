#pragma once

#include "core/base/Result.h"
#include "core/ops/Activation.h"

#include <QByteArray>
#include <QString>

namespace attn {

// The architectures a model folder can hold today (config.json "model_type"). Llama, Qwen2 and
// Mistral are the Llama family (RMSNorm, rotary positions, SwiGLU); GPT-NeoX is Pythia's.
enum class ModelArchitecture { Gpt2, Bert, DistilBert, Llama, Qwen2, Mistral, GptNeox };

// transformers' rope_scaling (modeling_rope_utils): how the rotary frequencies are adjusted.
struct RopeScaling {
    enum class Type { Default, Linear, Llama3 };
    Type type = Type::Default;
    double factor = 1.0;                       // linear: inv_freq / factor; llama3: the long-wavelength divisor
    double low_freq_factor = 1.0;              // llama3
    double high_freq_factor = 4.0;             // llama3
    int original_max_position_embeddings = 0;  // llama3
};

// What config.json says about a model, resolved as the transformers configuration classes
// (GPT2Config, BertConfig, DistilBertConfig, LlamaConfig, Qwen2Config, MistralConfig,
// GPTNeoXConfig) resolve it: their attribute_map aliases (an alias given in the file wins, as PretrainedConfig's setter makes it)
// and their defaults for every key that does not set a tensor shape. Keys that set a shape must be
// present; options that would make transformers compute something this program does not are
// refused.
struct ModelConfig {
    ModelArchitecture architecture = ModelArchitecture::Gpt2;
    QString model_type;  // "gpt2", "bert", "distilbert", "llama", "qwen2", "mistral", "gpt_neox"

    int num_layers = 0;         // GPT-2 n_layer, BERT num_hidden_layers, DistilBERT n_layers
    int num_heads = 0;          // n_head, num_attention_heads, n_heads
    int num_kv_heads = 0;       // Llama family num_key_value_heads (absent: num_heads); = num_heads otherwise
    int hidden_size = 0;        // n_embd, hidden_size, dim
    int intermediate_size = 0;  // n_inner (null: 4 x n_embd), intermediate_size, hidden_dim
    int vocab_size = 0;
    int max_positions = 0;    // n_positions, max_position_embeddings (a bound only with learned positions)
    int type_vocab_size = 0;  // BERT token types; 0 for the others

    double layer_norm_eps = 1e-5;  // GPT-2 layer_norm_epsilon, BERT layer_norm_eps, DistilBERT 1e-12,
                                   // Llama family rms_norm_eps, GPT-NeoX layer_norm_eps
    Activation activation = Activation::GeluTanh;
    bool causal = false;                // GPT-2: every query sees only the keys up to itself
    bool scale_attention = true;        // GPT-2 scale_attn_weights: scores / sqrt(head_dim), else unscaled
    bool tie_word_embeddings = true;    // the LM / MLM head's output matrix is the word embeddings
    bool sinusoidal_positions = false;  // DistilBERT sinusoidal_pos_embds

    // Rotary position embeddings (Llama family, GPT-NeoX), in the rotate_half form: the first
    // rotary_dim features of each head turned in pairs (i, i + rotary_dim / 2) by position * inv_freq_i,
    // inv_freq_i = 1 / rope_theta^(2i / rotary_dim), adjusted by rope_scaling. 0: no rotation.
    int rotary_dim = 0;           // head_dim (Llama family), int(head_dim * rotary_pct) (GPT-NeoX)
    double rope_theta = 10000.0;  // rope_theta, GPT-NeoX rotary_emb_base
    RopeScaling rope_scaling;
    bool qkv_bias = false;           // q, k, v projections with biases (Qwen2; attention_bias)
    bool out_bias = false;           // the output projection with a bias (attention_bias)
    bool parallel_residual = false;  // GPT-NeoX use_parallel_residual: x + Attn(LN_1(x)) + MLP(LN_2(x))
    int sliding_window = 0;          // Mistral: query i sees keys i - sliding_window + 1 .. i; 0 = none

    int headDim() const { return num_heads > 0 ? hidden_size / num_heads : 0; }
    int kvDim() const { return num_kv_heads * headDim(); }
    bool isLlamaFamily() const
    {
        return architecture == ModelArchitecture::Llama || architecture == ModelArchitecture::Qwen2 ||
               architecture == ModelArchitecture::Mistral;
    }
    // Positions enter through the rotation of Q and K, not a learned table: any length is accepted.
    bool hasRotaryPositions() const { return isLlamaFamily() || architecture == ModelArchitecture::GptNeox; }

    // Parses the text of config.json. Messages are reasons, naming the key ("n_head: ...").
    static Result<ModelConfig> fromJson(const QByteArray& json);
};

}  // namespace attn
