#pragma once

#include "core/base/Result.h"
#include "core/base/Tensor.h"

#include <cstdint>

namespace attn {

// The parameters of one multi-head attention layer, in math layout (y = x W + b):
//   Q = X Wq + bq,  K = X Wk + bk,  V = X Wv + bv,  output = concat(heads) Wo + bo.
// Wq, Wk and Wv are stored side by side so the three projections are one matrix product.
struct AttentionWeights {
    int num_heads = 1;
    Matrix in_proj;      // (input_dim, 3 * d_model): [Wq | Wk | Wv]
    RowVector in_bias;   // (3 * d_model): [bq | bk | bv], or empty for no bias
    Matrix out_proj;     // (d_model, output_dim), or empty: the output is then the concatenation
    RowVector out_bias;  // (output_dim), or empty

    int inputDim() const { return int(in_proj.rows()); }
    int dModel() const { return int(in_proj.cols() / 3); }
    int headDim() const { return num_heads > 0 ? dModel() / num_heads : 0; }
    int outputDim() const { return hasOutputProjection() ? int(out_proj.cols()) : dModel(); }
    bool hasInputBias() const { return in_bias.size() > 0; }
    bool hasOutputProjection() const { return out_proj.size() > 0; }
    std::int64_t parameterCount() const;

    auto wq() const { return in_proj.leftCols(dModel()); }  // (input_dim, d_model)
    auto wk() const { return in_proj.middleCols(dModel(), dModel()); }
    auto wv() const { return in_proj.rightCols(dModel()); }

    // Shapes agree, heads divide d_model, every number is finite. Everything that builds weights
    // from outside data calls this before the weights are used.
    Status validate() const;
    // validate() without the scan of every number: the engine checks finiteness slice by slice
    // while it multiplies, where the weights pass through the cache anyway.
    Status validateShapes() const;

    // Builds from separate math-layout matrices; biases may be empty.
    static Result<AttentionWeights> fromParts(int num_heads, const Matrix& wq, const Matrix& wk, const Matrix& wv,
                                              const RowVector& bq, const RowVector& bk, const RowVector& bv,
                                              const Matrix& wo, const RowVector& bo);

    // PyTorch's default nn.Linear initialisation, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weights
    // and biases, from a portable seeded generator.
    static Result<AttentionWeights> random(int input_dim, int d_model, int num_heads, std::uint64_t seed);
    // Wq = Wk = Wv = Wo = I (a rectangular identity when input_dim != d_model), no biases:
    // the scores are then the raw dot products of the input vectors.
    static Result<AttentionWeights> identity(int input_dim, int d_model, int num_heads);

    // Refuses sizes that could not be allocated, before allocating anything.
    static Status checkDimensions(int input_dim, int d_model, int num_heads);
};

}  // namespace attn
