#pragma once

#include "ui/views/HeadlessPicture.h"

namespace attn {

// The Model picture of --export: every layer x head of a whole model's run as one grid, the
// caption on top, heads framed or sorted by a score (--mark-heads, --sort-heads).
class ModelGridPicture {
public:
    static Result<HeadlessPicture> fromRequest(const PictureInput& input, const ExportRequest& request);
};

}  // namespace attn
