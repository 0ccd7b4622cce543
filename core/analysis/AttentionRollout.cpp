#include "core/analysis/AttentionRollout.h"

#include <algorithm>

namespace attn {

MatrixD AttentionRollout::layerMap(const AttentionMaps& maps, int layer, const Options& options)
{
    const int seq_len = maps.seqLen();
    const int num_heads = maps.numHeads();
    MatrixD fused(seq_len, seq_len);  // (T, T): F_l, then A_l
    for (int i = 0; i < seq_len; ++i) {
        const int stored = maps.rowLength(i);  // a causal map stores keys 0..i; the rest are 0
        for (int j = 0; j < seq_len; ++j) {
            double value = j < stored ? double(maps.row(layer, 0, i)[j]) : 0.0;
            for (int h = 1; h < num_heads; ++h) {
                const double weight = j < stored ? double(maps.row(layer, h, i)[j]) : 0.0;
                switch (options.fusion) {
                    case HeadFusion::Mean: value += weight; break;
                    case HeadFusion::Max: value = std::max(value, weight); break;
                    case HeadFusion::Min: value = std::min(value, weight); break;
                }
            }
            fused(i, j) = options.fusion == HeadFusion::Mean ? value / num_heads : value;
        }
    }
    const double w = options.residual_weight;
    fused *= 1.0 - w;
    fused.diagonal().array() += w;
    for (int i = 0; i < seq_len; ++i) {
        const double sum = fused.row(i).sum();
        if (sum > 0.0)
            fused.row(i) /= sum;
    }
    return fused;
}

Result<MatrixD> AttentionRollout::compute(const AttentionMaps& maps, const Options& options)
{
    if (!(options.residual_weight >= 0.0 && options.residual_weight <= 1.0))
        return Error{QStringLiteral("the residual weight must be between 0 and 1, got %1").arg(options.residual_weight)};
    const int last = options.last_layer < 0 ? maps.numLayers() - 1 : options.last_layer;
    if (maps.numLayers() == 0 || maps.seqLen() == 0)
        return Error{QStringLiteral("there is no attention to roll out")};
    if (last >= maps.numLayers())
        return Error{QStringLiteral("layer %1 is out of range, the model has layers 0 to %2")
                         .arg(last)
                         .arg(maps.numLayers() - 1)};
    MatrixD rollout = layerMap(maps, 0, options);  // (T, T): R_0
    for (int l = 1; l <= last; ++l)
        rollout = layerMap(maps, l, options) * rollout;  // R_l = A_l R_(l-1)
    return rollout;
}

}  // namespace attn
