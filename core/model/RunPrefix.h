#pragma once

#include "core/base/Result.h"
#include "core/model/ModelRun.h"

namespace attn {

// The run of a causal model over the first `length` tokens of `run`, taken from it without a
// forward pass: under the causal mask no row sees a later token, so every map of the prefix is
// the top-left (length, length) block of the run's, and every per-token matrix its first `length`
// rows (a generation's steps replayed in the window). Refused for a bidirectional run and for a
// length outside 1..run.seqLen().
Result<ModelRun> runPrefix(const ModelRun& run, int length);

}  // namespace attn
