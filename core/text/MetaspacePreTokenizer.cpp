#include "core/text/MetaspacePreTokenizer.h"

#include "core/text/SplitPreTokenizer.h"

namespace attn {

MetaspacePreTokenizer::MetaspacePreTokenizer(char32_t replacement, Prepend prepend, bool split)
    : m_replacement(replacement), m_prepend(prepend), m_split(split)
{
}

QList<NormalizedText> MetaspacePreTokenizer::split(const NormalizedText& text) const
{
    const QList<NormalizedText::Char> chars = text.chars();
    const bool startsInput = !chars.isEmpty() && chars.first().begin == 0;
    NormalizedText replaced;
    const bool startsMarked = !chars.isEmpty() && (chars.first().code == U' ' || chars.first().code == m_replacement);
    const bool prepend = m_prepend == Prepend::Always || (m_prepend == Prepend::First && startsInput);
    if (prepend && !startsMarked && !chars.isEmpty())
        replaced.append(m_replacement, chars.first().begin, chars.first().begin);
    for (const NormalizedText::Char& c : chars)
        replaced.append(c.code == U' ' ? m_replacement : c.code, c.begin, c.end);
    if (replaced.isEmpty())
        return {};
    if (!m_split)
        return {replaced};
    QList<SplitPreTokenizer::Segment> segments;
    const QString& units = replaced.text();
    const qsizetype width = QChar::requiresSurrogates(m_replacement) ? 2 : 1;
    qsizetype previous = 0;
    for (qsizetype i = 0; i < units.size();) {
        const char32_t code = units.at(i).isHighSurrogate() && i + 1 < units.size()
                                  ? QChar::surrogateToUcs4(units.at(i), units.at(i + 1))
                                  : char32_t(units.at(i).unicode());
        const qsizetype step = QChar::requiresSurrogates(code) ? 2 : 1;
        if (code == m_replacement) {
            if (i > previous)
                segments.append({previous, i, false});
            segments.append({i, i + width, true});
            previous = i + width;
        }
        i += step;
    }
    if (previous < units.size())
        segments.append({previous, units.size(), false});
    return SplitPreTokenizer::apply(replaced, segments, SplitPreTokenizer::Behaviour::MergedWithNext);
}

}  // namespace attn
