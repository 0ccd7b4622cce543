#pragma once

#include "core/analysis/HeadFusion.h"

#include <optional>

namespace attn {

// An extra heatmap of every head fused (View › Heatmaps, --aggregate-heads): none, or the mean or
// maximum over the heads. The grid draws it after the last head; the Model tab as an extra column
// (each layer's heads), row (each head across the layers) and corner (every head of every layer).
enum class HeadAggregate { None, Mean, Max };

// The fusion it draws, nullopt for None.
inline std::optional<HeadFusion> headFusionOf(HeadAggregate aggregate)
{
    switch (aggregate) {
        case HeadAggregate::Mean:
            return HeadFusion::Mean;
        case HeadAggregate::Max:
            return HeadFusion::Max;
        case HeadAggregate::None:
            break;
    }
    return std::nullopt;
}

}  // namespace attn
