#include "core/analysis/HeadFusion.h"

namespace attn {

std::optional<HeadFusion> headFusionFromKey(const QString& key)
{
    if (key == u"mean")
        return HeadFusion::Mean;
    if (key == u"max")
        return HeadFusion::Max;
    if (key == u"min")
        return HeadFusion::Min;
    return std::nullopt;
}

QString headFusionKey(HeadFusion fusion)
{
    switch (fusion) {
        case HeadFusion::Max: return QStringLiteral("max");
        case HeadFusion::Min: return QStringLiteral("min");
        case HeadFusion::Mean: break;
    }
    return QStringLiteral("mean");
}

}  // namespace attn
