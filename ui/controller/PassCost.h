#pragma once

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "core/weights/LoadedWeights.h"

#include <cstdint>

namespace attn {

// What a pass of the controller costs: the work that decides where it runs (the GUI thread, one
// core, every core) and the memory a result on screen keeps while the next one is planned.

// The work of a pass whose weights are `weights`, or still to be made from `config` (random
// weights cost a few multiply-adds per parameter to generate).
double passFlops(const LoadedWeights* weights, const RunSettings& config, int seq_len);

// What a result on screen holds of its size: the weights (and scores) of the heads it keeps, and a
// long input's pictures.
std::int64_t heldBytes(const AttentionResult& result);

}  // namespace attn
