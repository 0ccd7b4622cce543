#include "core/lens/AttentionNorms.h"

#include <cmath>

namespace attn {

Matrix AttentionNorms::valueNorms(const ConstMatrixRef& values, int num_heads, int num_kv_heads, const Matrix& out_proj)
{
    const int keys = int(values.rows());
    const int head_dim = int(values.cols()) / num_kv_heads;
    const int group = num_heads / num_kv_heads;
    Matrix norms(num_heads, keys);  // (H, T_kv)
    for (int h = 0; h < num_heads; ++h) {
        const MatrixD v = values.middleCols((h / group) * head_dim, head_dim).cast<double>();  // (T_kv, D)
        if (out_proj.size() == 0) {
            norms.row(h) = v.rowwise().norm().transpose().cast<float>();
            continue;
        }
        const MatrixD w = out_proj.middleRows(h * head_dim, head_dim).cast<double>();  // (D, C)
        const MatrixD gram = w * w.transpose();                                        // (D, D)
        const MatrixD vg = v * gram;                                                   // (T_kv, D)
        for (int j = 0; j < keys; ++j)
            norms(h, j) = float(std::sqrt(std::max(0.0, vg.row(j).dot(v.row(j)))));
    }
    return norms;
}

Result<std::vector<Matrix>> AttentionNorms::ofModel(const ModelConfig& config, const ModelWeights& weights,
                                                    const ModelRun& run)
{
    if (int(run.layer_inputs.size()) != config.num_layers)
        return Error{QStringLiteral("the forward pass did not keep every layer's attention input")};
    std::vector<Matrix> norms;
    norms.reserve(size_t(config.num_layers));
    for (int l = 0; l < config.num_layers; ++l) {
        const AttentionWeights& a = weights.layers[size_t(l)].attention;
        Matrix values = run.layer_inputs[size_t(l)] * a.wv();  // (T, kv_dim)
        if (a.hasInputBias())
            values.rowwise() += a.in_bias.segment(a.dModel() + a.kvDim(), a.kvDim());
        norms.push_back(valueNorms(values, a.num_heads, a.kvHeads(), a.out_proj));
    }
    return norms;
}

}  // namespace attn
