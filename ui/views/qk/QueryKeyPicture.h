#pragma once

#include "ui/views/HeadlessPicture.h"

namespace attn {

// The Q–K space picture of --export: --head's queries and keys in one scatter, the hidden keys marked.
class QueryKeyPicture {
public:
    static Result<HeadlessPicture> fromRequest(const PictureInput& input, const ExportRequest& request);
};

}  // namespace attn
