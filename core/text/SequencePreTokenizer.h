#pragma once

#include "core/text/PreTokenizer.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace attn {

// Hugging Face's Sequence pre-tokenizer: each step splits every word the steps before made.
class SequencePreTokenizer : public PreTokenizer {
public:
    explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps) : m_steps(std::move(steps)) {}
    QList<NormalizedText> split(const NormalizedText& text) const override
    {
        QList<NormalizedText> words{text};
        for (const auto& step : m_steps) {
            QList<NormalizedText> next;
            for (const NormalizedText& word : words)
                next += step->split(word);
            words = std::move(next);
        }
        return words;
    }
    bool byteLevel() const override
    {
        return std::any_of(m_steps.begin(), m_steps.end(), [](const auto& step) { return step->byteLevel(); });
    }

private:
    std::vector<std::unique_ptr<PreTokenizer>> m_steps;
};

}  // namespace attn
