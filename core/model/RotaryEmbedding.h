#pragma once

#include "core/attention/PositionRotation.h"
#include "core/model/ModelConfig.h"

#include <vector>

namespace attn {

// Rotary position embeddings as transformers computes them (LlamaRotaryEmbedding,
// GPTNeoXRotaryEmbedding with modeling_rope_utils' default, linear and llama3 frequencies), in
// the rotate_half form: feature i < R/2 of a head is paired with feature i + R/2 (R = rotary_dim;
// features from R on are passed through, GPT-NeoX's partial rotary), and at position p
//   x_i'       = x_i cos(p f_i) - x_(i+R/2) sin(p f_i)
//   x_(i+R/2)' = x_(i+R/2) cos(p f_i) + x_i sin(p f_i),   f_i = 1 / theta^(2i / R), scaled.
// As in transformers, f_i, the angles p f_i and their cosines and sines are float32.
class RotaryEmbedding {
public:
    RotaryEmbedding() = default;
    // The cosines and sines of positions 0 .. seq_len - 1.
    RotaryEmbedding(const ModelConfig& config, int seq_len);

    bool isEmpty() const { return m_half == 0; }
    int rotaryDim() const { return 2 * m_half; }
    int positions() const { return int(m_cos.rows()); }

    // inv_freq of _compute_default_rope_parameters, adjusted by _compute_linear_scaling_rope_parameters
    // or _compute_llama3_parameters: (rotary_dim / 2) frequencies.
    static std::vector<float> inverseFrequencies(const ModelConfig& config);

    // Rotates every head of `projected` (rows, heads * head_dim) in place; row r is position
    // first_position + r, which must be below seq_len.
    void apply(MatrixRef projected, int heads, int head_dim, int first_position) const;

private:
    int m_half = 0;
    Matrix m_cos;  // (seq_len, rotary_dim / 2)
    Matrix m_sin;  // (seq_len, rotary_dim / 2)
};

}  // namespace attn
