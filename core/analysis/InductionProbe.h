#pragma once

#include <cstdint>
#include <vector>

namespace attn {

// TransformerLens's standard test for induction heads: a sequence of random token ids given
// twice. In the second copy an induction head attends from each token to the token after its
// earlier occurrence, and its HeadScores::induction score is high.
class InductionProbe {
public:
    // 2 x length ids: `length` ids drawn from [1000, 10000) as TransformerLens draws them (from
    // [0, vocab_size) when the vocabulary is smaller), then the same ids again. The same seed
    // gives the same ids on every machine (a 64-bit Mersenne Twister, reduced by modulo).
    static std::vector<int> tokens(int length, int vocab_size, std::uint64_t seed = 0);
};

}  // namespace attn
