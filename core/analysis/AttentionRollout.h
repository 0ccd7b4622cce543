#pragma once

#include "core/analysis/HeadFusion.h"
#include "core/base/Result.h"
#include "core/base/Tensor.h"
#include "core/model/AttentionMaps.h"

#include <QString>

#include <optional>

namespace attn {

// Attention rollout (Abnar & Zuidema, "Quantifying Attention Flow in Transformers", 2020), as the
// command-line contract defines it. Per layer l the heads are fused into F_l, then
//   A_l = rows-normalised((1 - w) F_l + w I),   R_0 = A_0,   R_l = A_l R_(l-1).
// With mean fusion and w = 0.5 this is compute_joint_attention of the authors' code (their A + I
// renormalised). Row i of R_l says how much of what token i holds after layer l came from each
// input token. A row whose fused weights and residual are all 0 (min fusion of disjoint heads with
// w = 0) stays 0 rather than dividing by zero.
class AttentionRollout {
public:
    struct Options {
        HeadFusion fusion = HeadFusion::Mean;
        double residual_weight = 0.5;  // w, in [0, 1]
        int last_layer = -1;           // roll out up to and including this layer; -1 = the last
    };

    // The rollout after options.last_layer: (T, T) in double, rows summing to 1.
    static Result<MatrixD> compute(const AttentionMaps& maps, const Options& options);
    // One layer's fused, residual-mixed and row-normalised map A_l: (T, T).
    static MatrixD layerMap(const AttentionMaps& maps, int layer, const Options& options);
};

}  // namespace attn
