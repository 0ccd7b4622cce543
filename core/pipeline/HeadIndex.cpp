#include "core/pipeline/HeadIndex.h"

namespace attn {

Status HeadIndex::check(int head, int num_heads)
{
    if (head >= 0 && head < num_heads)
        return {};
    const QString heads = num_heads <= 0   ? QStringLiteral("no heads")
                          : num_heads == 1 ? QStringLiteral("1 head, head 0")
                                           : QStringLiteral("%1 heads, 0 to %2").arg(num_heads).arg(num_heads - 1);
    return Error{QStringLiteral("head %1 is out of range: the model has %2").arg(head).arg(heads)};
}

}  // namespace attn
