#pragma once

#include <QString>

#include <optional>

namespace attn {

// How several heads' maps are fused into one: element by element, the mean, the largest or the
// smallest weight of each cell.
enum class HeadFusion { Mean, Max, Min };

std::optional<HeadFusion> headFusionFromKey(const QString& key);  // "mean", "max", "min"
QString headFusionKey(HeadFusion fusion);

}  // namespace attn
