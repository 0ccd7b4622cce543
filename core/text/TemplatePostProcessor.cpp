#include "core/text/TemplatePostProcessor.h"

namespace attn {

void TemplatePostProcessor::process(SubwordEncoding& encoding, bool addSpecialTokens) const
{
    if (!addSpecialTokens)
        return;
    SubwordEncoding out;
    for (const Part& part : m_single) {
        if (part.isSequence) {
            out.ids += encoding.ids;
            out.tokens += encoding.tokens;
            out.special += encoding.special;
            continue;
        }
        for (int id : part.ids) {
            out.ids.append(id);
            out.tokens.append(Token{});
            out.special.append(true);
        }
    }
    encoding = std::move(out);
}

QList<int> TemplatePostProcessor::specialIds() const
{
    QList<int> ids;
    for (const Part& part : m_single)
        ids += part.ids;
    return ids;
}

}  // namespace attn
