#include "core/text/WordSplitter.h"

#include <QTextBoundaryFinder>

namespace attn {
namespace {

enum class Kind { Space, Word, Ideograph, Other };

bool isIdeographicScript(char32_t c)
{
    const QChar::Script script = QChar::script(c);
    return script == QChar::Script_Han || script == QChar::Script_Hiragana || script == QChar::Script_Katakana;
}

Kind classify(QStringView cluster)
{
    const char32_t first = cluster.toUcs4().value(0);
    if (QChar::isSpace(first))
        return Kind::Space;
    if (QChar::isLetterOrNumber(first) || QChar::isMark(first))
        return isIdeographicScript(first) ? Kind::Ideograph : Kind::Word;
    return Kind::Other;
}

bool isApostrophe(QStringView cluster)
{
    return cluster == u"'" || cluster == u"\u2019";
}

}  // namespace

TokenList WordSplitter::split(const QString& sentence)
{
    // Grapheme clusters first, so an emoji with a skin-tone modifier or a letter with a
    // combining accent is never cut in two.
    struct Cluster {
        qsizetype begin, end;
        Kind kind;
    };
    QList<Cluster> clusters;
    QTextBoundaryFinder finder(QTextBoundaryFinder::Grapheme, sentence);
    qsizetype begin = 0;
    while (begin < sentence.size()) {
        finder.setPosition(begin);
        qsizetype end = finder.toNextBoundary();
        if (end <= begin)
            end = sentence.size();
        clusters.append({begin, end, classify(QStringView(sentence).sliced(begin, end - begin))});
        begin = end;
    }

    TokenList tokens;
    auto addToken = [&](qsizetype from, qsizetype to) { tokens.append({sentence.mid(from, to - from), from, to}); };
    for (qsizetype i = 0; i < clusters.size();) {
        const Cluster& c = clusters[i];
        if (c.kind == Kind::Space) {
            ++i;
            continue;
        }
        if (c.kind != Kind::Word) {
            addToken(c.begin, c.end);
            ++i;
            continue;
        }
        qsizetype j = i + 1;
        while (j < clusters.size()) {
            if (clusters[j].kind == Kind::Word) {
                ++j;
                continue;
            }
            const bool innerApostrophe =
                j + 1 < clusters.size() &&
                isApostrophe(QStringView(sentence).sliced(clusters[j].begin, clusters[j].end - clusters[j].begin)) &&
                clusters[j + 1].kind == Kind::Word;
            if (!innerApostrophe)
                break;
            j += 2;
        }
        addToken(c.begin, clusters[j - 1].end);
        i = j;
    }
    return tokens;
}

}  // namespace attn
