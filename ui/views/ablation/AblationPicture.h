#pragma once

#include "ui/views/HeadlessPicture.h"

namespace attn {

// The Ablation scan picture of --export (--view ablation with --model and --metric): every head
// ablated alone (zeros; --ablation mean: its mean) and the change of --metric at --position
// (default: the last token), drawn as the window's tab draws it; heads --ablate switched off in
// the run are crossed out. Refused, naming the cause, without a prediction head and without --metric.
class AblationPicture {
public:
    static Result<HeadlessPicture> fromRequest(const PictureInput& input, const ExportRequest& request);
};

}  // namespace attn
