#include "core/base/InstructionSet.h"

namespace attn {

QString engineInstructionSet()
{
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
    return QStringLiteral("x86-64-v4 (AVX-512)");
#elif defined(__AVX2__) && defined(__FMA__)
    return QStringLiteral("x86-64-v3 (AVX2, FMA)");
#elif defined(__SSE4_2__) && defined(__POPCNT__)
    return QStringLiteral("x86-64-v2 (SSE4.2)");
#elif defined(__x86_64__)
    return QStringLiteral("x86-64");
#else
    return QStringLiteral("not x86-64");
#endif
}

}  // namespace attn
