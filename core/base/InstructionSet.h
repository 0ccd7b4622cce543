#pragma once

#include <QString>

namespace attn {

// The x86-64 level the engine was compiled for: "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2, FMA)",
// "x86-64-v2 (SSE4.2)" or "x86-64". With ATTENTION_LAB_HWCAPS the engine is a library built at
// several levels and glibc loads one (core/CMakeLists.txt): this names the copy that was loaded.
QString engineInstructionSet();

}  // namespace attn
