#pragma once

#include "core/base/Result.h"

#include <cmath>
#include <cstdint>

namespace attn {

// How a generation chooses each token. Greedy (the default): the largest logit, ties to the lower
// id. Sampling: transformers' logits warpers in their order (temperature, then top-k, then top-p),
// then one draw from the softmax of what is left with SplitMix64 seeded by `seed`
// (TokenSampler.h), so that a seed gives the same tokens on every machine.
struct SamplingSettings {
    bool sample = false;
    double temperature = 1.0;  // > 0, finite: logits / temperature
    std::uint64_t seed = 0;
    int top_k = 0;       // 0: off; else the k largest (all tokens tied with the k-th kept)
    double top_p = 1.0;  // (0, 1]; 1: off; else the smallest set of largest p whose mass reaches top_p

    // Bad values, named by the command line's options.
    Status check() const
    {
        if (!(std::isfinite(temperature) && temperature > 0.0))
            return Error{QStringLiteral("--temperature: expected a finite number above 0, got %1").arg(temperature)};
        if (top_k < 0)
            return Error{QStringLiteral("--sample-top-k: expected a positive integer, got %1").arg(top_k)};
        if (!(top_p > 0.0 && top_p <= 1.0))
            return Error{QStringLiteral("--sample-top-p: expected a number above 0 and at most 1, got %1").arg(top_p)};
        return {};
    }
};

}  // namespace attn
