#pragma once

#include "core/io/TensorSource.h"
#include "core/model/ModelConfig.h"

#include <QString>

#include <span>

namespace attn {

// Where a tensor of a checkpoint goes in the forward pass. The names differ between
// architectures; the roles do not.
enum class WeightSlot {
    WordEmbedding,        // (vocab, hidden): one row per token id
    PositionEmbedding,    // (positions, hidden)
    TokenTypeEmbedding,   // (token types, hidden), BERT
    EmbeddingNormWeight,  // LayerNorm after the embeddings, BERT-family
    EmbeddingNormBias,
    AttnNormWeight,  // the LayerNorm of the attention sub-block: before it (GPT-2), after it (BERT-family)
    AttnNormBias,
    QkvWeight,  // fused: [Wq | Wk | Wv] (GPT-2), per head [q_h | k_h | v_h] (GPT-NeoX)
    QkvBias,
    QueryWeight,
    QueryBias,
    KeyWeight,
    KeyBias,
    ValueWeight,
    ValueBias,
    AttnOutWeight,  // output projection of the concatenated heads
    AttnOutBias,
    MlpNormWeight,  // the LayerNorm of the MLP sub-block: before it (GPT-2), after it (BERT-family)
    MlpNormBias,
    MlpGateWeight,  // (hidden -> intermediate), SwiGLU's gate: MLP(h) = (act(h W_gate) * (h W_in)) W_out
    MlpInWeight,    // (hidden -> intermediate)
    MlpInBias,
    MlpOutWeight,  // (intermediate -> hidden)
    MlpOutBias,
    FinalNormWeight,  // GPT-2 ln_f
    FinalNormBias,
    HeadTransformWeight,  // MLM head: dense, activation, LayerNorm, then the decoder
    HeadTransformBias,
    HeadNormWeight,
    HeadNormBias,
    HeadDecoderWeight,  // (vocab, hidden), tied to the word embeddings unless the config says otherwise
    HeadDecoderBias,    // (vocab)
};

// The sizes of the config that the tables write shapes in.
// KvHidden: num_kv_heads * head_dim, the width of K and V (grouped-query attention).
enum class Dim { None, Hidden, Hidden3, KvHidden, Inner, Vocab, Positions, TokenTypes };

// Whether the config makes a tensor part of the model (attention biases of the Llama family and
// GPT-NeoX exist only when the config says so).
enum class Presence { Always, WithQkvBias, WithOutBias };

// How a checkpoint stores a tensor, and so how it becomes the math layout y = x W + b:
// a Conv1D weight (in, out) is that layout already; an nn.Linear weight (out, in) is transposed;
// an embedding table (count, width) and a vector are used as they are.
enum class StoredAs { Vector, Table, Conv1D, Linear };

// Base: the base model (GPT2Model, BertModel, DistilBertModel), whose tensors may carry the
// architecture's prefix. Head: the LM / MLM head, named without it; loaded when all its tensors
// are there (it gives the top-5 predictions, nothing else needs it).
enum class TensorPart { Base, Head };

struct TensorSpec {
    WeightSlot slot;
    const char* name;  // as the base model or head names it; "{L}" stands for the layer number
    StoredAs stored;
    Dim rows;  // the shape as stored in the file; Dim::None for a vector
    Dim cols;
    TensorPart part = TensorPart::Base;
    bool optional = false;  // may be absent (a tied decoder, DistilBERT's sinusoidal positions)
    Presence presence = Presence::Always;

    bool perLayer() const;
    bool isPartOf(const ModelConfig& config) const;
};

struct ArchitectureTensors {
    QString prefix;  // "transformer.", "bert.", "distilbert.", "model.", "gpt_neox.": stripped from the names
    std::span<const TensorSpec> tensors;
};

// One table per architecture (TensorNameTable.cpp), in the order of transformers' modeling files.
const ArchitectureTensors& tensorTable(ModelArchitecture architecture);

// The name with "{L}" replaced by the layer number.
QString tensorName(const TensorSpec& spec, int layer);
// The shape the config implies, as stored in the file.
Shape expectedShape(const TensorSpec& spec, const ModelConfig& config);

}  // namespace attn
