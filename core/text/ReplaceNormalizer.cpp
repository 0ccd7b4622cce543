#include "core/text/ReplaceNormalizer.h"

namespace attn {

void ReplaceNormalizer::normalize(NormalizedText& text) const
{
    NormalizedText out;
    const QList<uint> content = m_content.toUcs4();
    qsizetype previous = 0;
    auto copy = [&](qsizetype from, qsizetype to) {
        for (const NormalizedText::Char& c : text.slice(from, to).chars())
            out.append(c.code, c.begin, c.end);
    };
    bool changed = false;
    for (auto it = m_pattern.globalMatch(text.text()); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        copy(previous, match.capturedStart());
        const auto [begin, end] = text.inputRange(match.capturedStart(), match.capturedEnd());
        for (uint code : content)
            out.append(code, begin, end);
        previous = match.capturedEnd();
        changed = true;
    }
    if (!changed)
        return;
    copy(previous, text.size());
    text = std::move(out);
}

}  // namespace attn
