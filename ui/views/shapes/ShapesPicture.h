#pragma once

#include "ui/views/HeadlessPicture.h"

namespace attn {

// The Shapes pictures of --export: the shape diagram of one result (--view shapes, --batch,
// --head highlighted), or a whole model's chain of blocks (--view model-shapes).
class ShapesPicture {
public:
    static Result<HeadlessPicture> ofResult(const PictureInput& input, const ExportRequest& request);
    static Result<HeadlessPicture> ofModel(const PictureInput& input, const ExportRequest& request);
};

}  // namespace attn
