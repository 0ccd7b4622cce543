#include "core/text/BertPreTokenizer.h"

#include "core/text/BertNormalizer.h"

#include <QChar>

namespace attn {

bool BertPreTokenizer::isPunctuation(char32_t c)
{
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126))
        return true;
    switch (QChar::category(c)) {
        case QChar::Punctuation_Connector:
        case QChar::Punctuation_Dash:
        case QChar::Punctuation_Open:
        case QChar::Punctuation_Close:
        case QChar::Punctuation_InitialQuote:
        case QChar::Punctuation_FinalQuote:
        case QChar::Punctuation_Other:
            return true;
        default:
            return false;
    }
}

QList<NormalizedText> BertPreTokenizer::split(const NormalizedText& text) const
{
    QList<NormalizedText> words;
    const QString& s = text.text();
    qsizetype wordStart = -1;
    auto endWord = [&](qsizetype at) {
        if (wordStart >= 0 && at > wordStart)
            words.append(text.slice(wordStart, at));
        wordStart = -1;
    };
    for (qsizetype i = 0; i < s.size();) {
        char32_t c = s.at(i).unicode();
        qsizetype width = 1;
        if (s.at(i).isHighSurrogate() && i + 1 < s.size() && s.at(i + 1).isLowSurrogate()) {
            c = QChar::surrogateToUcs4(s.at(i), s.at(i + 1));
            width = 2;
        }
        if (BertNormalizer::isWhitespace(c)) {
            endWord(i);
        } else if (isPunctuation(c)) {
            endWord(i);
            words.append(text.slice(i, i + width));
        } else if (wordStart < 0) {
            wordStart = i;
        }
        i += width;
    }
    endWord(s.size());
    return words;
}

}  // namespace attn
