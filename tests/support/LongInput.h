#pragma once

// A long input's result at test size: numbered words through the engine's long route
// (AttentionOptions::block_factor: one head's weights kept, the others recomputed when asked
// for), and the same input and weights through the ordinary pass that keeps every head.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"

#include <QString>

#include <optional>

namespace attn {

// "w0 w1 ... " over `count` words, the numbers wrapping at `distinct`.
inline QString numberedWords(int count, int distinct)
{
    QString sentence;
    for (int i = 0; i < count; ++i)
        sentence += QStringLiteral("w%1 ").arg(i % distinct);
    return sentence;
}

struct LongInputPasses {
    AttentionResult full;     // every head kept
    AttentionResult blocked;  // the long route, head kept_head kept
};

// nullopt when the weights or either pass are refused.
inline std::optional<LongInputPasses> longInputPasses(const RunSettings& config, int words, int distinct,
                                                      int kept_head, int block_factor = 2)
{
    auto weights = AttentionPipeline::buildWeights(config);
    if (!weights)
        return std::nullopt;
    const AttentionInput input = AttentionPipeline::inputFromSentence(numberedWords(words, distinct), config);
    auto full = AttentionPipeline::run(config, input, AttentionInput{}, weights.value(), TraceDetail::Probabilities);
    auto blocked = AttentionPipeline::run(config, input, AttentionInput{}, weights.value(), TraceDetail::Probabilities,
                                          block_factor, kept_head);
    if (!full || !blocked)
        return std::nullopt;
    return LongInputPasses{std::move(full).value(), std::move(blocked).value()};
}

}  // namespace attn
