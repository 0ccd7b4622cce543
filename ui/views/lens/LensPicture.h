#pragma once

#include "ui/views/HeadlessPicture.h"

namespace attn {

// The Lens picture of --export (--view lens with --model): the run's logit lens with --top-k K,
// coloured by the tracked token's p when --metric names one (its TARGET), the last position pinned.
class LensPicture {
public:
    static Result<HeadlessPicture> fromRequest(const PictureInput& input, const ExportRequest& request);
};

}  // namespace attn
