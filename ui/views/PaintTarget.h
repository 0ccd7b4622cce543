#pragma once

namespace attn {

// Where a view's painter draws: its widget in the window, which also shows what the mouse is over
// and what a click would do; or a picture (an exported file, a copied image), which shows the
// figure only.
enum class PaintTarget { Screen, Picture };

}  // namespace attn
