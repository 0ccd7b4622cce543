#pragma once

#include <QString>

namespace attn {

// The text of an error label with break opportunities (zero-width spaces) inside its long words:
// after the dots, slashes, underscores and hyphens of a file name or path, and every
// kLongestPiece characters of a piece still longer. A word-wrapping QLabel breaks only at spaces,
// so "model.safetensors.index.json" would otherwise set its minimum width, and a narrow panel
// would scroll sideways and clip its buttons. Words up to kLongWord characters are left whole.
QString breakableText(const QString& text);
inline constexpr int kLongWord = 20;
inline constexpr int kLongestPiece = 16;

}  // namespace attn
