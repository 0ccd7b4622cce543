#pragma once

#include "core/analysis/AttentionRollout.h"
#include "core/base/Result.h"
#include "core/base/Tensor.h"
#include "core/model/AttentionMaps.h"

namespace attn {

// Attention flow (Abnar & Zuidema, 2020), as compute_flows of the authors' code computes it: the
// layers are a graph of (L + 1) x T nodes (the input tokens, then each layer's tokens); node
// (l + 1, i) has an edge to (l, j) of capacity A_l[i][j], the layer's map with its heads fused
// and the residual mixed in exactly as for the rollout (AttentionRollout::layerMap). The flow of
// token i after the last layer from input token j is the maximum flow from node (L, i) to node
// (0, j); each row is then divided by its sum. A maximum flow per pair of tokens is T^2 flows
// over a graph of L T^2 edges: inputs are limited to kMaxTokens.
class AttentionFlow {
public:
    static constexpr int kMaxTokens = 64;

    // (T, T), rows summing to 1 (a row with no flow at all stays 0).
    static Result<MatrixD> compute(const AttentionMaps& maps, const AttentionRollout::Options& options);
};

}  // namespace attn
