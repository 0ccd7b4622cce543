#pragma once

#include "core/text/PostProcessor.h"

#include <memory>
#include <vector>

namespace attn {

// Hugging Face's Sequence post-processor: the steps one after the other (Llama 3: ByteLevel
// offsets, then the template that adds <|begin_of_text|>).
class SequencePostProcessor : public PostProcessor {
public:
    explicit SequencePostProcessor(std::vector<std::unique_ptr<PostProcessor>> steps) : m_steps(std::move(steps)) {}
    void process(SubwordEncoding& encoding, bool addSpecialTokens) const override
    {
        for (const auto& step : m_steps)
            step->process(encoding, addSpecialTokens);
    }
    QList<int> specialIds() const override
    {
        QList<int> ids;
        for (const auto& step : m_steps)
            ids += step->specialIds();
        return ids;
    }

private:
    std::vector<std::unique_ptr<PostProcessor>> m_steps;
};

}  // namespace attn
