#pragma once

#include <QList>
#include <QString>

#include <cstdint>
#include <vector>

namespace attn {

struct AttentionResult;

// One named axis of a tensor, e.g. {"T", 10}.
struct ShapeDim {
    QString name;
    std::int64_t value = 0;

    bool operator==(const ShapeDim&) const = default;
};

// What the shape diagram needs to know: only dimensions and which optional parts exist.
struct ShapeConfig {
    std::int64_t batch = 1;      // B: drawn only, the numbers do not depend on it
    std::int64_t seq_len = 1;    // T, or T_q with cross-attention
    std::int64_t kv_len = 0;     // T_kv: keys and values from a second input; 0 = self-attention
    std::int64_t input_dim = 1;  // d_in
    std::int64_t d_model = 1;
    std::int64_t num_heads = 1;   // h
    std::int64_t output_dim = 1;  // d_out (= d_model without an output projection)
    bool has_output_projection = true;
    bool has_input_bias = true;
    bool has_output_bias = true;
    bool masked = false;      // a causal or padding mask is on: the mask step is shown
    bool causal = false;      // the mask is the causal one (drawn as a triangle)
    bool positional = false;  // X includes a positional encoding
    double scale = 0.0;       // divisor of the scores; 0 = sqrt(head_dim)
    // Llama family, GPT-NeoX:
    std::int64_t num_kv_heads = 0;    // h_kv: grouped-query attention's key/value heads; 0 = h
    std::int64_t rotary_dim = 0;      // R: rotary positions turn the first R features of each head; 0 = none
    std::int64_t sliding_window = 0;  // W: with causal, query i sees keys i - W + 1 .. i; 0 = none

    bool isCross() const { return kv_len > 0; }
    std::int64_t keyLength() const { return isCross() ? kv_len : seq_len; }
    std::int64_t headDim() const { return num_heads > 0 ? d_model / num_heads : 0; }
    std::int64_t kvHeads() const { return num_kv_heads > 0 ? num_kv_heads : num_heads; }
    std::int64_t kvDim() const { return kvHeads() * headDim(); }  // d_kv = h_kv d_k
    bool isGrouped() const { return kvHeads() != num_heads; }
    bool windowed() const { return causal && sliding_window > 0 && sliding_window < keyLength(); }
    double effectiveScale() const;

    // The dimensions of a computed result. AttentionResult does not record which biases exist,
    // so they are read off its parameter count (the only sizes that can make up the difference).
    static ShapeConfig fromResult(const AttentionResult& result, std::int64_t batch);
};

// One box of the diagram: a tensor, or a weight matrix (parameters), with the step that makes it.
struct ShapeStep {
    enum class Kind { Tensor, Weight };
    enum class Id {
        Input,
        Wq,
        Wk,
        Wv,
        Q,
        K,
        V,
        QHeads,
        KHeads,
        VHeads,
        Scores,
        Masked,
        Softmax,
        HeadOutputs,
        Concat,
        Wo,
        Output,
        QRotated,  // rotary positions: Q and K heads turned by position
        KRotated,
        KRepeated,  // grouped-query attention: repeat_kv, (B, h_kv, T, d_k) -> (B, h, T, d_k)
        VRepeated,
    };

    Id id = Id::Input;
    Kind kind = Kind::Tensor;
    QString name;     // "Q", "Wq", "scores"
    QString formula;  // "Q = X Wq + bq"
    QList<ShapeDim> shape;
    int head_axis = -1;              // index of the h axis in shape, or -1: the tensor is split into heads
    std::int64_t parameters = 0;     // weights: entries of the matrix plus its bias
    std::int64_t multiply_adds = 0;  // of the matrix product that makes this tensor (0 for weights)
    std::int64_t elementwise = 0;    // other per-element operations of the step (bias, scale, exp)
    QString cost_formula;            // "B·T·d_in·d_model" (multiply-adds) or "d_in·d_model + d_model" (parameters)

    QString shapeText() const;   // "(32, 8, 10, 64)"
    QString shapeNames() const;  // "(B, h, T, d_k)"
    std::int64_t elementCount() const;
};

// The whole multi-head attention computation as a list of tensors and weights with their shapes,
// parameters and costs. The convention for the totals: FLOPs = 2 x multiply-adds of the matrix
// products (X Wq, Q Kᵀ, weights V, concat Wo); bias adds, scaling, masking and softmax are
// listed per step as element-wise operations but are not part of the FLOP total.
class ShapeData {
public:
    explicit ShapeData(const ShapeConfig& config);

    const ShapeConfig& config() const { return m_config; }
    const std::vector<ShapeStep>& steps() const { return m_steps; }
    const ShapeStep* step(ShapeStep::Id id) const;  // nullptr when the step is absent

    std::int64_t totalParameters() const;
    std::int64_t totalMultiplyAdds() const;
    std::int64_t totalFlops() const { return 2 * totalMultiplyAdds(); }

    static QString flopConvention();
    static QString formatCount(std::int64_t value);    // "1,050,624"
    static QString formatCompact(std::int64_t value);  // 4 significant digits: "1.051 M", "677.6 M"

private:
    ShapeConfig m_config;
    std::vector<ShapeStep> m_steps;
};

}  // namespace attn
