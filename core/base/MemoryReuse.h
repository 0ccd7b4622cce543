#pragma once

#include <cstdlib>  // defines __GLIBC__ with glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attn {

// A whole-model pass allocates and frees the same few-megabyte matrices layer after layer (Q, K,
// V, the MLP's (T, 4C) activations, the engine's scratch). By default glibc's malloc serves each
// block over 128 KiB with a fresh mmap and gives it back on free, so every layer faults its pages
// in and zeroes them again: 15% of a BERT-base pass at T = 256. This keeps blocks of up to 32 MiB
// on the heap, and up to 256 MiB of freed heap for reuse, for the whole process. Called once at
// start-up by the program (and by the benchmarks, to measure what the program does).
inline void keepFreedBlocksForReuse()
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace attn
