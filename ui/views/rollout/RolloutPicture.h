#pragma once

#include "ui/views/HeadlessPicture.h"

namespace attn {

// The Rollout picture of --export: the run's attention rollout (T, T) and the last token's (or
// [CLS]'s) row as bars, with --rollout-fusion and --residual-weight.
class RolloutPicture {
public:
    static Result<HeadlessPicture> fromRequest(const PictureInput& input, const ExportRequest& request);
};

}  // namespace attn
