#pragma once

#include "core/text/PreTokenizer.h"

#include <QRegularExpression>

namespace attn {

// Hugging Face's Split pre-tokenizer: the matches of a pattern cut the text, and the behaviour
// says where each match goes:
//   Isolated            every match and every stretch between matches is a word;
//   Removed             matches are dropped;
//   MergedWithPrevious  a match joins the stretch before it;
//   MergedWithNext      a match joins the stretch after it;
//   Contiguous          consecutive matches form one word.
// With invert, the stretches between matches play the part of the matches. Empty words are dropped.
class SplitPreTokenizer : public PreTokenizer {
public:
    enum class Behaviour { Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous };

    // A stretch of the text [begin, end) in UTF-16 units, and whether it is a match.
    struct Segment {
        qsizetype begin = 0;
        qsizetype end = 0;
        bool match = false;
    };

    SplitPreTokenizer(QRegularExpression pattern, Behaviour behaviour, bool invert);
    QList<NormalizedText> split(const NormalizedText& text) const override;

    // The segments, matches and stretches between them, that tile `text`.
    static QList<Segment> find(const QRegularExpression& pattern, const QString& text);
    // Cuts `text` at the segments (which tile it) as `behaviour` says.
    static QList<NormalizedText> apply(const NormalizedText& text, const QList<Segment>& segments, Behaviour behaviour);

private:
    QRegularExpression m_pattern;
    Behaviour m_behaviour;
    bool m_invert;
};

}  // namespace attn
