#pragma once

#include "core/base/Result.h"
#include "core/base/Tensor.h"

#include <memory>

namespace attn {

class AttentionController;
struct AttentionResult;
struct ModelRun;

// Where the window's views get value-weighted attention ||A_ij f^h(x_j)|| from when the weights
// <-> norms switch says norms: the controller's result and run as they are (no second pass), only
// the value norms computed, from the weights in use (an open model's layer, or the settings').
class ValueNormsSource {
public:
    // The result's heads (H, T_kv): from its V and the output projection of the weights in use.
    static Result<Matrix> ofResult(const AttentionController& controller, const AttentionResult& result);
    // The run of an open model with every layer's maps weighed (value_norms set), and the same
    // with each row divided by its sum, for the rollout (it mixes distributions with the identity).
    struct WeighedRuns {
        std::shared_ptr<const ModelRun> norms;
        std::shared_ptr<const ModelRun> row_normalised;
    };
    static Result<WeighedRuns> weighedRuns(const AttentionController& controller, const ModelRun& run);
};

}  // namespace attn
