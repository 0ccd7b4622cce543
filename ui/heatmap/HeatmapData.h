#pragma once

#include "ui/heatmap/HeatmapPlot.h"

#include <QStringList>

namespace attn {

struct AttentionResult;

// What every attention view derives from a result once, shared by all of its heads.
struct HeatmapData {
    QStringList labels;      // one per query: the rows (y)
    QStringList key_labels;  // one per key: the columns (x); the same as labels for self-attention
    MaskMatrix mask;         // (query_len, key_len): true where the query may not see the key
    bool any_masked = false;
    double high = 1.0;  // the largest weight over all heads: the top of the shared colour scale

    static HeatmapData fromResult(const AttentionResult& result);
};

}  // namespace attn
