#pragma once

#include <QString>

namespace attn {

// The x86-64 level the engine was compiled for: "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2, FMA)",
// "x86-64-v2 (SSE4.2)" or "x86-64"; the compiler's name for another processor. In the .deb the
// engine is a library built at three levels and glibc loads the best one the processor runs
// (core/CMakeLists.txt), so this names the copy that was loaded.
QString engineInstructionSet();

}  // namespace attn
