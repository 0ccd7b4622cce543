// The steps of the tokenizer.json pipeline one at a time, on cases whose answers follow from
// Hugging Face's Rust rules (its documentation's examples where it has them): Split's behaviours,
// the Llama 3 / Qwen2 regexes as Oniguruma runs them, Metaspace, Digits and the normalizers.
#include "core/text/DigitsPreTokenizer.h"
#include "core/text/LowercaseNormalizer.h"
#include "core/text/MetaspacePreTokenizer.h"
#include "core/text/OnigPattern.h"
#include "core/text/PrependNormalizer.h"
#include "core/text/ReplaceNormalizer.h"
#include "core/text/SplitPreTokenizer.h"
#include "core/text/TokenPiece.h"
#include "core/text/UnicodeFormNormalizer.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

using namespace attn;

namespace {

const QString kLlama3 = QStringLiteral(
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
    "\\s+(?!\\S)|\\s+");
const QString kLlama3Possessive = QStringLiteral(
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
const QString kQwen2 = QStringLiteral(
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
    "\\s+(?!\\S)|\\s+");

QStringList texts(const QList<NormalizedText>& words)
{
    QStringList out;
    for (const NormalizedText& word : words)
        out.append(word.text());
    return out;
}

NormalizedText input(const QString& text)
{
    return NormalizedText::fromInput(text, 0, text.size());
}

QStringList splitWith(const QString& regex, const QString& text)
{
    const Result<QRegularExpression> pattern = OnigPattern::compile(regex);
    if (!pattern)
        qFatal("%s", qPrintable(pattern.error()));
    return texts(SplitPreTokenizer(*pattern, SplitPreTokenizer::Behaviour::Isolated, false).split(input(text)));
}

}  // namespace

class TestTokenizersSteps : public QObject {
    Q_OBJECT

private slots:
    // The example of the Rust library's SplitDelimiterBehavior documentation.
    void splitBehaviours_data()
    {
        QTest::addColumn<int>("behaviour");
        QTest::addColumn<bool>("invert");
        QTest::addColumn<QStringList>("words");
        using B = SplitPreTokenizer::Behaviour;
        QTest::newRow("Removed") << int(B::Removed) << false << QStringList{"the", "final", "countdown"};
        QTest::newRow("Isolated") << int(B::Isolated) << false
                                  << QStringList{"the", "-", "final", "-", "-", "countdown"};
        QTest::newRow("MergedWithPrevious")
            << int(B::MergedWithPrevious) << false << QStringList{"the-", "final-", "-", "countdown"};
        QTest::newRow("MergedWithNext") << int(B::MergedWithNext) << false
                                        << QStringList{"the", "-final", "-", "-countdown"};
        QTest::newRow("Contiguous") << int(B::Contiguous) << false
                                    << QStringList{"the", "-", "final", "--", "countdown"};
        QTest::newRow("Removed inverted") << int(B::Removed) << true << QStringList{"-", "-", "-"};
        QTest::newRow("MergedWithPrevious inverted")
            << int(B::MergedWithPrevious) << true << QStringList{"the", "-final", "-", "-countdown"};
    }
    void splitBehaviours()
    {
        QFETCH(int, behaviour);
        QFETCH(bool, invert);
        QFETCH(QStringList, words);
        const SplitPreTokenizer split(OnigPattern::literal("-"), SplitPreTokenizer::Behaviour(behaviour), invert);
        QCOMPARE(texts(split.split(input("the-final--countdown"))), words);
    }

    void llama3Regex_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("words");
        QTest::newRow("upper-case contractions") << "I'LL DON'T" << QStringList{"I", "'LL", " DON", "'T"};
        // Unicode case folding: ſ (long s) is s.
        QTest::newRow("long s contraction") << "it'\u017f" << QStringList{"it", "'\u017f"};
        QTest::newRow("digits in threes") << "1234567" << QStringList{"123", "456", "7"};
        QTest::newRow("punctuation before letters") << "(hello)" << QStringList{"(hello", ")"};
        QTest::newRow("newlines stay with punctuation") << "end.\n\nNext" << QStringList{"end", ".\n\n", "Next"};
        QTest::newRow("spaces before a word") << "a   b" << QStringList{"a", "  ", " b"};
        QTest::newRow("spaces then newline") << "a  \n b" << QStringList{"a", "  \n", " b"};
        // U+0085 is white space to Oniguruma (not to PCRE2's own \s, which would keep the two
        // together as punctuation).
        QTest::newRow("next line") << "x\u0085\u0085y" << QStringList{"x", "\u0085", "\u0085y"};
        QTest::newRow("no-break space is white space") << "a\u00a0\u00a0b" << QStringList{"a", "\u00a0", "\u00a0b"};
        QTest::newRow("byte-order mark is not") << "a \ufeffb" << QStringList{"a", " \ufeff", "b"};
        QTest::newRow("letters of other scripts")
            << "Tokyo \u6771\u4eac2024\u5e74" << QStringList{"Tokyo", " \u6771\u4eac", "202", "4", "\u5e74"};
    }
    void llama3Regex()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, words);
        QCOMPARE(splitWith(kLlama3, text), words);
        QCOMPARE(splitWith(kLlama3Possessive, text), words);
    }

    void qwen2RegexSplitsSingleDigits()
    {
        QCOMPARE(splitWith(kQwen2, "x=2024;"), (QStringList{"x", "=", "2", "0", "2", "4", ";"}));
    }

    void possessiveQuantifierDoesNotGiveBack()
    {
        // a++a never matches: a++ takes every a. Removing the matches keeps the a's.
        const Result<QRegularExpression> possessive = OnigPattern::compile("a++a|b");
        QVERIFY(possessive);
        const SplitPreTokenizer removed(*possessive, SplitPreTokenizer::Behaviour::Removed, false);
        QCOMPARE(texts(removed.split(input("aab"))), QStringList{"aa"});
    }

    void refusesNonWhiteInsideAClass()
    {
        QVERIFY(!OnigPattern::compile("[\\S]+"));
        QVERIFY(OnigPattern::compile("[\\s]+"));
    }

    void metaspace_data()
    {
        QTest::addColumn<int>("prepend");
        QTest::addColumn<bool>("split");
        QTest::addColumn<qsizetype>("start");  // where the text starts in the input
        QTest::addColumn<QStringList>("words");
        using P = MetaspacePreTokenizer::Prepend;
        QTest::newRow("always, split") << int(P::Always) << true << qsizetype(0)
                                       << QStringList{"\u2581Hey", "\u2581friend!"};
        QTest::newRow("never, split") << int(P::Never) << true << qsizetype(0) << QStringList{"Hey", "\u2581friend!"};
        QTest::newRow("first, start of input")
            << int(P::First) << false << qsizetype(0) << QStringList{"\u2581Hey\u2581friend!"};
        QTest::newRow("first, after an added token")
            << int(P::First) << false << qsizetype(3) << QStringList{"Hey\u2581friend!"};
    }
    void metaspace()
    {
        QFETCH(int, prepend);
        QFETCH(bool, split);
        QFETCH(qsizetype, start);
        QFETCH(QStringList, words);
        const QString whole = QString(start, u'x') + "Hey friend!";
        const MetaspacePreTokenizer metaspace(U'\u2581', MetaspacePreTokenizer::Prepend(prepend), split);
        QCOMPARE(texts(metaspace.split(NormalizedText::fromInput(whole, start, whole.size()))), words);
    }

    // The Rust library's own Digits tests.
    void digits()
    {
        QCOMPARE(texts(DigitsPreTokenizer(true).split(input("Hey 123 friend!"))),
                 (QStringList{"Hey ", "1", "2", "3", " friend!"}));
        QCOMPARE(texts(DigitsPreTokenizer(false).split(input("Hey 123 friend!"))),
                 (QStringList{"Hey ", "123", " friend!"}));
    }

    void normalizersKeepInputRanges()
    {
        NormalizedText text = input("Cafe\u0301 \u0130");
        UnicodeFormNormalizer(QString::NormalizationForm_C).normalize(text);
        QCOMPARE(text.text(), QString("Caf\u00e9 \u0130"));
        QCOMPARE(text.inputRange(3, 4), std::make_pair(qsizetype(3), qsizetype(5)));  // é from e + U+0301
        LowercaseNormalizer().normalize(text);
        QCOMPARE(text.text(), QString("caf\u00e9 i\u0307"));  // İ: full lower-case mapping
        QCOMPARE(text.inputRange(6, 7), std::make_pair(qsizetype(6), qsizetype(7)));
        ReplaceNormalizer(OnigPattern::literal(" "), "\u2581").normalize(text);
        PrependNormalizer("\u2581").normalize(text);
        QCOMPARE(text.text(), QString("\u2581caf\u00e9\u2581i\u0307"));
        QCOMPARE(text.inputRange(0, 1), std::make_pair(qsizetype(0), qsizetype(0)));  // inserted
        QCOMPARE(text.inputRange(5, 6), std::make_pair(qsizetype(5), qsizetype(6)));  // the space
    }

    void finalSigmaLowerCasedAlone()
    {
        NormalizedText text = input("\u039f\u0394\u039f\u03a3");
        LowercaseNormalizer().normalize(text);
        QCOMPARE(text.text(), QString("\u03bf\u03b4\u03bf\u03c3"));
    }

    void nfkcFoldsCompatibilityCharacters()
    {
        NormalizedText text = input("\ufb01ne \u2460");
        UnicodeFormNormalizer(QString::NormalizationForm_KC).normalize(text);
        QCOMPARE(text.text(), QString("fine 1"));
        QCOMPARE(text.inputRange(0, 2), std::make_pair(qsizetype(0), qsizetype(1)));  // both from the ligature
    }

    void sentencePieceMarkReadsAsASpace()
    {
        const TokenPiece word = TokenPiece::of("\u2581cat", false);
        QVERIFY(word.leading_space);
        QCOMPARE(word.text, QString("cat"));
        QCOMPARE(word.label(), QString("\u2423cat"));
        QCOMPARE(TokenPiece::of("\u2581", false).text, QString("\u2581"));  // a lone mark is a token of its own
        QCOMPARE(TokenPiece::of("<0xC3>", false).text, QString("<0xC3>"));
    }
};

REGISTER_TEST_SUITE(TestTokenizersSteps, QCoreApplication)
#include "test_tokenizers_steps.moc"
