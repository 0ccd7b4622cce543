#pragma once

#include <QString>

#include <array>
#include <optional>

namespace attn {

// The views of the window, in tab order: the window's tabs, the command line's --tab and --view,
// and the remembered view all speak of these.
// Model (every layer x head of a whole model), Rollout and QueryKey come last, so the indices older versions saved
// still name the same views.
enum class View { Grid, Head, Compare, Lines, Shapes, Walkthrough, Model, Rollout, QueryKey };

inline constexpr std::array<View, 9> kAllViews = {View::Grid,   View::Head,        View::Compare,
                                                  View::Lines,  View::Shapes,      View::Walkthrough,
                                                  View::Model,  View::Rollout,     View::QueryKey};

// "grid", "head", "compare", "lines", "shapes", "walkthrough", "model", "rollout", "qk": the keys of the command line and
// of the saved settings.
QString viewKey(View view);
std::optional<View> viewFromKey(const QString& key);  // trimmed, case-insensitive; nullopt when unknown

}  // namespace attn
