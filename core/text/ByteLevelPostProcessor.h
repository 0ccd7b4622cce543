#pragma once

#include "core/text/PostProcessor.h"

namespace attn {

// Hugging Face's ByteLevel post-processor: adds no token, and with trimOffsets narrows each
// token's range so it leaves out the spaces ('Ġ') it starts or ends with, except the one space
// that addPrefixSpace put before the first word.
class ByteLevelPostProcessor : public PostProcessor {
public:
    ByteLevelPostProcessor(bool trimOffsets, bool addPrefixSpace)
        : m_trimOffsets(trimOffsets), m_addPrefixSpace(addPrefixSpace)
    {
    }
    void process(SubwordEncoding& encoding, bool addSpecialTokens) const override;

private:
    bool m_trimOffsets;
    bool m_addPrefixSpace;
};

}  // namespace attn
