#pragma once

#include "core/attention/AttentionOptions.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/MemoryPlan.h"
#include "core/pipeline/RunSettings.h"
#include "core/weights/LoadedWeights.h"

#include <cstdint>

namespace attn {

// Raw scores (for the walkthrough) only while they are small: T_q T_kv floats per head.
inline TraceDetail traceDetailFor(qint64 query_len, int num_heads, qint64 key_len = -1)
{
    const qint64 keys = key_len < 0 ? query_len : key_len;
    return query_len * keys * num_heads <= (qint64(1) << 19) ? TraceDetail::Full : TraceDetail::Probabilities;
}

// What a pass of the controller costs: the work that decides where it runs (the GUI thread, one
// core, every core) and the memory a result on screen keeps while the next one is planned.

// The work of a pass whose weights are `weights`, or still to be made from `config` (random
// weights cost a few multiply-adds per parameter to generate).
double passFlops(const LoadedWeights* weights, const RunSettings& config, int seq_len);

// What a result on screen holds of its size: the weights (and scores) of the heads it keeps, and a
// long input's pictures.
std::int64_t heldBytes(const AttentionResult& result);

// A long input's route for a pass of query_len x key_len over num_heads heads whose pictures hold
// at most picture_cells (AttentionPipeline::blockFactorFor), written into `need` when taken:
// every head's picture, and three heads' weights (the kept one, the one recomputed last, and one
// that a view's worker may still hold then). The factor, or 0 for the ordinary pass.
int planLongRoute(MemoryRequest& need, int query_len, int key_len, int num_heads, std::int64_t picture_cells,
                  std::int64_t long_route_bytes);

}  // namespace attn
