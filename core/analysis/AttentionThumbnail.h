#pragma once

#include "core/analysis/HeadFusion.h"
#include "core/base/Tensor.h"
#include "core/model/AttentionMaps.h"

#include <utility>
#include <vector>

namespace attn {

// How the cells under one pixel of a reduced head become its value.
enum class ThumbnailReduction {
    Max,   // the largest weight: a sharp pattern stays visible however small the thumbnail
    Mean,  // the mean weight of the cells the query may see
};

// One head of a model reduced to a small thumbnail, straight from AttentionMaps::row (no (T, T)
// matrix is built): pixel (r, c) covers queries [r T / rows, (r + 1) T / rows) and keys
// [c T / cols, (c + 1) T / cols). With rows = cols = T it is the head itself, cell for cell.
struct AttentionThumbnail {
    Matrix values;  // (rows, cols): NaN where every cell under the pixel is masked (causal)
    // The largest value over the pixels, leaving out the queries that see a single key (causal
    // row 0 holds 1 by construction): the top of the shared colour scale by default. -1 when
    // every query sees a single key.
    double top_without_one_key_rows = -1.0;
    double top = 0.0;  // the largest value of all pixels

    // rows, cols within 1..T (larger is clamped to T). `hidden_keys`: key positions hidden first,
    // each row renormalised over the keys that remain (AttentionDisplay::hideKeys).
    static AttentionThumbnail reduce(const AttentionMaps& maps, int layer, int head, int rows, int cols,
                                     ThumbnailReduction reduction, const std::vector<int>& hidden_keys = {});
    // Several heads (of any layers: (layer, head) pairs) fused cell by cell, then reduced as one.
    static AttentionThumbnail reduceFused(const AttentionMaps& maps, const std::vector<std::pair<int, int>>& members,
                                          HeadFusion fusion, int rows, int cols, ThumbnailReduction reduction,
                                          const std::vector<int>& hidden_keys = {});
    // Every layer x head of a run at one size, in layer-major order (index layer * H + head);
    // the heads are shared out to the cores.
    static std::vector<AttentionThumbnail> reduceAll(const AttentionMaps& maps, int rows, int cols,
                                                     ThumbnailReduction reduction,
                                                     const std::vector<int>& hidden_keys = {});
};

}  // namespace attn
