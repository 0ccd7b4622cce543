#include "ui/shell/BreakableText.h"

namespace attn {
namespace {

constexpr QChar kZeroWidthSpace(0x200B);

bool breaksAfter(QChar c)
{
    return c == u'.' || c == u'/' || c == u'\\' || c == u'_' || c == u'-' || c == u',' || c == u':';
}

QString breakableWord(const QString& word)
{
    if (word.size() <= kLongWord)
        return word;
    QString out;
    out.reserve(word.size() + word.size() / 4);
    int piece = 0;  // characters since the last break
    for (qsizetype i = 0; i < word.size(); ++i) {
        const QChar c = word[i];
        out += c;
        ++piece;
        const bool last = i + 1 == word.size();
        if (!last && (breaksAfter(c) || piece >= kLongestPiece) && !word[i + 1].isLowSurrogate()) {
            out += kZeroWidthSpace;
            piece = 0;
        }
    }
    return out;
}

}  // namespace

QString breakableText(const QString& text)
{
    QString out;
    out.reserve(text.size());
    qsizetype start = 0;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        if (i < text.size() && !text[i].isSpace())
            continue;
        out += breakableWord(text.mid(start, i - start));
        if (i < text.size())
            out += text[i];
        start = i + 1;
    }
    return out;
}

}  // namespace attn
