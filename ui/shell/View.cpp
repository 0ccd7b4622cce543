#include "ui/shell/View.h"

namespace attn {

QString viewKey(View view)
{
    switch (view) {
        case View::Grid:
            return QStringLiteral("grid");
        case View::Head:
            return QStringLiteral("head");
        case View::Compare:
            return QStringLiteral("compare");
        case View::Lines:
            return QStringLiteral("lines");
        case View::Shapes:
            return QStringLiteral("shapes");
        case View::Walkthrough:
            return QStringLiteral("walkthrough");
        case View::Model:
            return QStringLiteral("model");
        case View::Rollout:
            return QStringLiteral("rollout");
        case View::QueryKey:
            return QStringLiteral("qk");
    }
    return QString();
}

std::optional<View> viewFromKey(const QString& key)
{
    const QString wanted = key.trimmed().toLower();
    for (View view : kAllViews)
        if (viewKey(view) == wanted)
            return view;
    return std::nullopt;
}

}  // namespace attn
