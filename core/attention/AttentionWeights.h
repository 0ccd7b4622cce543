#pragma once

#include "core/base/Result.h"
#include "core/base/Tensor.h"

#include <cstdint>

namespace attn {

// The parameters of one multi-head attention layer, in math layout (y = x W + b):
//   Q = X Wq + bq,  K = X Wk + bk,  V = X Wv + bv,  output = concat(heads) Wo + bo.
// Grouped-query attention: the num_heads query heads share num_kv_heads key/value heads, query
// head h using key/value head h / (num_heads / num_kv_heads); Wq is (input_dim, d_model =
// num_heads * head_dim), Wk and Wv are (input_dim, kv_dim = num_kv_heads * head_dim). Plain
// multi-head attention has num_kv_heads = num_heads, multi-query attention 1.
// Wq, Wk and Wv are stored side by side so the weights of a layer are one allocation.
struct AttentionWeights {
    int num_heads = 1;
    int num_kv_heads = 0;  // divides num_heads; 0 = as many as num_heads, whatever num_heads becomes
    Matrix in_proj;        // (input_dim, d_model + 2 * kv_dim): [Wq | Wk | Wv]
    RowVector in_bias;     // (d_model + 2 * kv_dim): [bq | bk | bv], or empty for no bias
    Matrix out_proj;       // (d_model, output_dim), or empty: the output is then the concatenation
    RowVector out_bias;    // (output_dim), or empty

    int inputDim() const { return int(in_proj.rows()); }
    int kvHeads() const { return num_kv_heads > 0 ? num_kv_heads : num_heads; }
    int dModel() const;
    int headDim() const { return num_heads > 0 ? dModel() / num_heads : 0; }
    int kvDim() const { return kvHeads() * headDim(); }
    int outputDim() const { return hasOutputProjection() ? int(out_proj.cols()) : dModel(); }
    bool hasInputBias() const { return in_bias.size() > 0; }
    bool hasOutputProjection() const { return out_proj.size() > 0; }
    std::int64_t parameterCount() const;

    auto wq() const { return in_proj.leftCols(dModel()); }                       // (input_dim, d_model)
    auto wk() const { return in_proj.middleCols(dModel(), kvDim()); }            // (input_dim, kv_dim)
    auto wv() const { return in_proj.middleCols(dModel() + kvDim(), kvDim()); }  // (input_dim, kv_dim)

    // Shapes agree, heads divide d_model, key/value heads divide heads, every number is finite.
    // Everything that builds weights from outside data calls this before the weights are used.
    Status validate() const;
    // validate() without the scan of every number: the engine checks finiteness slice by slice
    // while it multiplies, where the weights pass through the cache anyway.
    Status validateShapes() const;

    // Builds from separate math-layout matrices (blocks of a larger matrix are read in place);
    // biases may be empty. Wq, Wk and Wv are copied side by side into in_proj, Wo and bo are
    // moved in when given as temporaries (std::move). Plain multi-head attention:
    static Result<AttentionWeights> fromParts(int num_heads, ConstMatrixRef wq, ConstMatrixRef wk, ConstMatrixRef wv,
                                              const RowVector& bq, const RowVector& bk, const RowVector& bv, Matrix wo,
                                              RowVector bo);
    // Grouped-query attention: wk and wv have num_kv_heads * head_dim columns.
    static Result<AttentionWeights> fromParts(int num_heads, int num_kv_heads, ConstMatrixRef wq, ConstMatrixRef wk,
                                              ConstMatrixRef wv, const RowVector& bq, const RowVector& bk,
                                              const RowVector& bv, Matrix wo, RowVector bo);
    // From Q, K and V already side by side (GPT-2's c_attn weight is in_proj as it is stored):
    // nothing is copied when the matrices are moved in.
    static Result<AttentionWeights> fromFused(int num_heads, int num_kv_heads, Matrix in_proj, RowVector in_bias,
                                              Matrix wo, RowVector bo);

    // PyTorch's default nn.Linear initialisation, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weights
    // and biases, from a portable seeded generator.
    static Result<AttentionWeights> random(int input_dim, int d_model, int num_heads, std::uint64_t seed);
    static Result<AttentionWeights> random(int input_dim, int d_model, int num_heads, int num_kv_heads,
                                           std::uint64_t seed);
    // Wq = Wk = Wv = Wo = I (a rectangular identity when input_dim != d_model), no biases:
    // the scores are then the raw dot products of the input vectors.
    static Result<AttentionWeights> identity(int input_dim, int d_model, int num_heads);

    // Refuses sizes that could not be allocated, before allocating anything. num_kv_heads 0 =
    // num_heads.
    static Status checkDimensions(int input_dim, int d_model, int num_heads, int num_kv_heads = 0);
};

}  // namespace attn
