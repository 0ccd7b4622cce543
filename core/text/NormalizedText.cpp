#include "core/text/NormalizedText.h"

#include <QStringView>

#include <algorithm>

namespace attn {

NormalizedText NormalizedText::fromInput(const QString& input, qsizetype begin, qsizetype end)
{
    NormalizedText out;
    out.m_text = input.mid(begin, end - begin);
    out.m_begin.reserve(out.m_text.size());
    out.m_end.reserve(out.m_text.size());
    for (qsizetype i = begin; i < end; ++i) {
        // Both halves of a surrogate pair point at the whole character.
        const bool pairStart = input.at(i).isHighSurrogate() && i + 1 < end && input.at(i + 1).isLowSurrogate();
        const bool pairEnd = input.at(i).isLowSurrogate() && i > begin && input.at(i - 1).isHighSurrogate();
        const qsizetype first = pairEnd ? i - 1 : i;
        const qsizetype last = pairStart ? i + 2 : i + 1;
        out.m_begin.append(first);
        out.m_end.append(last);
    }
    return out;
}

NormalizedText NormalizedText::fromChars(const QList<Char>& chars)
{
    NormalizedText out;
    for (const Char& c : chars)
        out.append(c.code, c.begin, c.end);
    return out;
}

QList<NormalizedText::Char> NormalizedText::chars() const
{
    QList<Char> out;
    out.reserve(m_text.size());
    for (qsizetype i = 0; i < m_text.size();) {
        const QChar unit = m_text.at(i);
        if (unit.isHighSurrogate() && i + 1 < m_text.size() && m_text.at(i + 1).isLowSurrogate()) {
            out.append({QChar::surrogateToUcs4(unit, m_text.at(i + 1)), m_begin[i], m_end[i]});
            i += 2;
        } else {
            out.append({unit.unicode(), m_begin[i], m_end[i]});
            ++i;
        }
    }
    return out;
}

NormalizedText NormalizedText::slice(qsizetype from, qsizetype to) const
{
    NormalizedText out;
    out.m_text = m_text.mid(from, to - from);
    out.m_begin = m_begin.mid(from, to - from);
    out.m_end = m_end.mid(from, to - from);
    return out;
}

std::pair<qsizetype, qsizetype> NormalizedText::inputRange(qsizetype from, qsizetype to) const
{
    if (from >= to) {
        const qsizetype at = from < m_begin.size() ? m_begin[from] : (m_end.isEmpty() ? 0 : m_end.last());
        return {at, at};
    }
    const qsizetype begin = *std::min_element(m_begin.begin() + from, m_begin.begin() + to);
    const qsizetype end = *std::max_element(m_end.begin() + from, m_end.begin() + to);
    return {begin, end};
}

void NormalizedText::append(char32_t code, qsizetype begin, qsizetype end)
{
    if (QChar::requiresSurrogates(code)) {
        m_text += QChar(QChar::highSurrogate(code));
        m_text += QChar(QChar::lowSurrogate(code));
        m_begin.append(begin);
        m_end.append(end);
    } else {
        m_text += QChar(char16_t(code));
    }
    m_begin.append(begin);
    m_end.append(end);
}

}  // namespace attn
