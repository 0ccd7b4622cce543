#include "core/text/SplitPreTokenizer.h"

namespace attn {

SplitPreTokenizer::SplitPreTokenizer(QRegularExpression pattern, Behaviour behaviour, bool invert)
    : m_pattern(std::move(pattern)), m_behaviour(behaviour), m_invert(invert)
{
}

QList<SplitPreTokenizer::Segment> SplitPreTokenizer::find(const QRegularExpression& pattern, const QString& text)
{
    QList<Segment> segments;
    qsizetype previous = 0;
    for (auto it = pattern.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        if (match.capturedStart() > previous)
            segments.append({previous, match.capturedStart(), false});
        segments.append({match.capturedStart(), match.capturedEnd(), true});
        previous = match.capturedEnd();
    }
    if (previous < text.size())
        segments.append({previous, text.size(), false});
    return segments;
}

QList<NormalizedText> SplitPreTokenizer::apply(const NormalizedText& text, const QList<Segment>& segments,
                                               Behaviour behaviour)
{
    // The fold of Hugging Face's NormalizedString::split, on (range, removed) pairs.
    QList<Segment> words;  // `match` here: the word is removed
    bool previousMatch = false;
    switch (behaviour) {
        case Behaviour::Isolated:
            for (const Segment& s : segments)
                words.append({s.begin, s.end, false});
            break;
        case Behaviour::Removed:
            words = segments;
            break;
        case Behaviour::Contiguous:
            for (const Segment& s : segments) {
                if (s.match == previousMatch && !words.isEmpty())
                    words.last().end = s.end;
                else
                    words.append({s.begin, s.end, false});
                previousMatch = s.match;
            }
            break;
        case Behaviour::MergedWithPrevious:
            for (const Segment& s : segments) {
                if (s.match && !previousMatch && !words.isEmpty())
                    words.last().end = s.end;
                else
                    words.append({s.begin, s.end, false});
                previousMatch = s.match;
            }
            break;
        case Behaviour::MergedWithNext:
            for (qsizetype i = segments.size() - 1; i >= 0; --i) {
                const Segment& s = segments[i];
                if (s.match && !previousMatch && !words.isEmpty())
                    words.last().begin = s.begin;
                else
                    words.append({s.begin, s.end, false});
                previousMatch = s.match;
            }
            std::reverse(words.begin(), words.end());
            break;
    }
    QList<NormalizedText> out;
    for (const Segment& w : words)
        if (!w.match && w.end > w.begin)
            out.append(text.slice(w.begin, w.end));
    return out;
}

QList<NormalizedText> SplitPreTokenizer::split(const NormalizedText& text) const
{
    QList<Segment> segments = find(m_pattern, text.text());
    if (m_invert)
        for (Segment& s : segments)
            s.match = !s.match;
    return apply(text, segments, m_behaviour);
}

}  // namespace attn
