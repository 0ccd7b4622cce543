#include "core/text/DigitsPreTokenizer.h"

#include "core/text/SplitPreTokenizer.h"

namespace attn {

QList<NormalizedText> DigitsPreTokenizer::split(const NormalizedText& text) const
{
    QList<SplitPreTokenizer::Segment> segments;
    const QString& units = text.text();
    qsizetype previous = 0;
    for (qsizetype i = 0; i < units.size();) {
        const bool pair = units.at(i).isHighSurrogate() && i + 1 < units.size() && units.at(i + 1).isLowSurrogate();
        const char32_t code = pair ? QChar::surrogateToUcs4(units.at(i), units.at(i + 1)) : units.at(i).unicode();
        const qsizetype step = pair ? 2 : 1;
        if (QChar::isNumber(code)) {
            if (i > previous)
                segments.append({previous, i, false});
            segments.append({i, i + step, true});
            previous = i + step;
        }
        i += step;
    }
    if (previous < units.size())
        segments.append({previous, units.size(), false});
    return SplitPreTokenizer::apply(
        text, segments,
        m_individualDigits ? SplitPreTokenizer::Behaviour::Isolated : SplitPreTokenizer::Behaviour::Contiguous);
}

}  // namespace attn
