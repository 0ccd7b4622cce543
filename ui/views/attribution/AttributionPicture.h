#pragma once

#include "ui/views/HeadlessPicture.h"

namespace attn {

// The Attribution picture of --export (--view attribution with --model and --metric): the direct
// logit attribution of --metric's TARGET (minus its FOIL) at --position (default: the last token),
// drawn as the window's Attribution tab draws it. Refused, naming the cause, without a prediction
// head, on a post-norm (BERT-family) model and without --metric.
class AttributionPicture {
public:
    static Result<HeadlessPicture> fromRequest(const PictureInput& input, const ExportRequest& request);
};

}  // namespace attn
