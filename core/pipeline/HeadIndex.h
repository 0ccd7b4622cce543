#pragma once

#include "core/base/Result.h"

namespace attn {

// A head number that came from outside (an option, an export request, a chooser), checked
// against the heads a model has. The one check and message for every caller: "head 8 is out of
// range: the model has 8 heads, 0 to 7". Callers add where the number came from.
class HeadIndex {
public:
    static Status check(int head, int num_heads);
};

}  // namespace attn
