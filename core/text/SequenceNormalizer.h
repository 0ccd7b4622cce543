#pragma once

#include "core/text/TextNormalizer.h"

#include <memory>
#include <vector>

namespace attn {

// Hugging Face's Sequence normalizer: the steps one after the other.
class SequenceNormalizer : public TextNormalizer {
public:
    explicit SequenceNormalizer(std::vector<std::unique_ptr<TextNormalizer>> steps) : m_steps(std::move(steps)) {}
    void normalize(NormalizedText& text) const override
    {
        for (const auto& step : m_steps)
            step->normalize(text);
    }

private:
    std::vector<std::unique_ptr<TextNormalizer>> m_steps;
};

}  // namespace attn
