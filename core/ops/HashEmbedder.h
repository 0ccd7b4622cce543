#pragma once

#include "core/base/Tensor.h"
#include "core/text/Token.h"

#include <cstdint>

namespace attn {

// A deterministic stand-in for a learned embedding table: the vector of a token depends only
// on (case-folded text, seed, dim), so "The" and "the" share one vector in every sentence and
// every run. Entries are standard normal, like nn.Embedding's default initialisation.
//
// Vectors are kept in a process-wide, thread-safe LRU cache keyed by (case-folded text, seed,
// dim): a sentence repeats words and typing changes one token at a time, so most rows of a
// keystroke's input are copies instead of `dim` Box-Muller draws. The cache only changes speed:
// a cached vector is the very vector `generate` returns.
class HashEmbedder {
public:
    static RowVector embed(const QString& text, std::uint64_t seed, int dim);
    static Matrix embed(const TokenList& tokens, std::uint64_t seed, int dim);  // (seq_len, dim)

    // The vector computed afresh, bypassing the cache (what the cache must reproduce).
    static RowVector generate(const QString& text, std::uint64_t seed, int dim);
    static qsizetype cachedVectorCount();
    static constexpr qsizetype kCacheFloats = qsizetype(1) << 22;  // 16 MiB of vectors at most
};

}  // namespace attn
