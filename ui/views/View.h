#pragma once

namespace attn {

// The views of the window, in tab order: the window's tabs, the command line's --tab and --view,
// and the remembered view all speak of these. Each value has one row in ViewRegistry's table
// (ui/registry/), which says everything else about it. A new view is appended: older versions
// saved the index, so the indices they saved must still name the same views.
enum class View {
    Grid, Head, Compare, Lines, Shapes, Walkthrough, Model, Rollout, QueryKey, Lens, Attribution, Ablation, Generate
};

}  // namespace attn
