#include "core/analysis/InductionProbe.h"

#include <algorithm>
#include <random>

namespace attn {

std::vector<int> InductionProbe::tokens(int length, int vocab_size, std::uint64_t seed)
{
    const int low = vocab_size > 10000 ? 1000 : 0;
    const int high = std::min(vocab_size, 10000);
    std::vector<int> ids;
    if (length <= 0 || high <= low)
        return ids;
    ids.reserve(2 * size_t(length));
    std::mt19937_64 generator(seed);
    for (int i = 0; i < length; ++i)
        ids.push_back(low + int(generator() % std::uint64_t(high - low)));
    for (int i = 0; i < length; ++i)
        ids.push_back(ids[size_t(i)]);
    return ids;
}

}  // namespace attn
