#pragma once

#include "ui/views/HeadlessPicture.h"

namespace attn {

// The All heads and One head pictures of --export: the tab's own widget, offscreen at the
// picture's size, drawn as on screen.
class HeadPictures {
public:
    static Result<HeadlessPicture> grid(const PictureInput& input, const ExportRequest& request);
    static Result<HeadlessPicture> head(const PictureInput& input, const ExportRequest& request);
};

}  // namespace attn
