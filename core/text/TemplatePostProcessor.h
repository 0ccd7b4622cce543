#pragma once

#include "core/text/PostProcessor.h"

namespace attn {

// Puts special tokens around the text's tokens following a template, as Hugging Face's
// TemplateProcessing and BertProcessing do for a single text: BERT's is [CLS] $A [SEP].
// Only single texts are encoded here, so a pair template has no use.
class TemplatePostProcessor : public PostProcessor {
public:
    struct Part {
        bool isSequence = false;  // the text's tokens ($A)
        QList<int> ids;           // otherwise: the special token's ids, usually one
    };

    explicit TemplatePostProcessor(QList<Part> single) : m_single(std::move(single)) {}
    void process(SubwordEncoding& encoding, bool addSpecialTokens) const override;
    QList<int> specialIds() const override;

private:
    QList<Part> m_single;
};

}  // namespace attn
