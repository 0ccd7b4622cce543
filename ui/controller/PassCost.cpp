#include "ui/controller/PassCost.h"

#include "ui/controller/AttentionController.h"

#include <cmath>

namespace attn {

double passFlops(const LoadedWeights* weights, const RunSettings& config, int seq_len)
{
    const int input_dim = weights ? weights->weights.inputDim() : config.effectiveInputDim();
    const int d_model = weights ? weights->weights.dModel() : config.d_model;
    const int output_dim = weights ? weights->weights.outputDim() : config.d_model;
    double flops = AttentionController::estimatedFlops(seq_len, input_dim, d_model, output_dim);
    if (!weights)
        flops += 10.0 * input_dim * 4.0 * d_model;  // generating random weights
    return flops;
}

std::int64_t heldBytes(const AttentionResult& result)
{
    const AttentionTrace& shown = result.trace;
    const int held_heads = shown.keepsEveryHead() ? shown.num_heads : 2;  // a long input's: kept + recomputed
    std::int64_t bytes = std::int64_t(sizeof(float)) * held_heads * shown.queryLength() * shown.keyLength() *
                         (shown.hasScores() ? 2 : 1);
    for (const CellBlocks& picture : shown.cell_blocks)
        bytes += std::int64_t(2 * sizeof(float) + 1) * picture.max.size();
    return bytes;
}

int planLongRoute(MemoryRequest& need, int query_len, int key_len, int num_heads, std::int64_t picture_cells,
                  std::int64_t long_route_bytes)
{
    const int reduced_side = int(std::lround(std::sqrt(double(picture_cells))));
    const int block_factor =
        AttentionPipeline::blockFactorFor(query_len, key_len, num_heads, reduced_side, long_route_bytes);
    if (block_factor > 0) {
        need.block_factor = block_factor;
        need.kept_heads = 3;
    }
    return block_factor;
}

}  // namespace attn
