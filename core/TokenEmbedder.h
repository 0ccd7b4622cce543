#pragma once

#include "Tensor.h"
#include "Token.h"

#include <cstdint>

namespace attn {

// A deterministic stand-in for a learned embedding table: the vector of a token depends only
// on (case-folded text, seed, dim), so "The" and "the" share one vector in every sentence and
// every run. Entries are standard normal, like nn.Embedding's default initialisation.
class TokenEmbedder {
public:
    static RowVector embed(const QString& text, std::uint64_t seed, int dim);
    static Matrix embed(const TokenList& tokens, std::uint64_t seed, int dim);  // (seq_len, dim)
};

}  // namespace attn
