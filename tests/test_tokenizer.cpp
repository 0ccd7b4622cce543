// Tokenizer, embeddings and positional encoding: the inputs every view starts from.
#include "PositionalEncoding.h"
#include "TokenEmbedder.h"
#include "Tokenizer.h"

#include <QtTest>

using namespace attn;

namespace {

QStringList texts(const TokenList& tokens)
{
    QStringList out;
    for (const Token& t : tokens)
        out.append(t.text);
    return out;
}

}  // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

private slots:
    void splits_data()
    {
        QTest::addColumn<QString>("sentence");
        QTest::addColumn<QStringList>("expected");
        QTest::addRow("default sentence") << "The cat sat on the rug and it was dry-cleaned."
            << QStringList{"The", "cat", "sat", "on", "the", "rug", "and", "it", "was", "dry", "-", "cleaned", "."};
        QTest::addRow("apostrophe inside a word") << "don't stop" << QStringList{"don't", "stop"};
        QTest::addRow("quotes are punctuation") << "'hi' she said" << QStringList{"'", "hi", "'", "she", "said"};
        QTest::addRow("accents, precomposed and combining") << QString::fromUtf8("café nai\xcc\x88ve")
            << QStringList{QString::fromUtf8("café"), QString::fromUtf8("nai\xcc\x88ve")};
        QTest::addRow("CJK, one character each") << QString::fromUtf8("我爱猫。")
            << QStringList{QString::fromUtf8("我"), QString::fromUtf8("爱"), QString::fromUtf8("猫"), QString::fromUtf8("。")};
        QTest::addRow("emoji with modifier stays whole") << QString::fromUtf8("hi 👋🏽!")
            << QStringList{"hi", QString::fromUtf8("👋🏽"), "!"};
        QTest::addRow("right to left") << QString::fromUtf8("שלום עולם")
            << QStringList{QString::fromUtf8("שלום"), QString::fromUtf8("עולם")};
        QTest::addRow("numbers") << "pi is 3.14" << QStringList{"pi", "is", "3", ".", "14"};
        QTest::addRow("empty") << "" << QStringList{};
        QTest::addRow("blank") << " \t\n " << QStringList{};
    }
    void splits()
    {
        QFETCH(QString, sentence);
        QFETCH(QStringList, expected);
        QCOMPARE(texts(Tokenizer::tokenize(sentence)), expected);
    }

    void rangesPointBackIntoTheSentence()
    {
        const QString sentence = QString::fromUtf8("  Hé, 👋🏽 dry-cleaned!");
        for (const Token& token : Tokenizer::tokenize(sentence))
            QCOMPARE(sentence.mid(token.begin, token.end - token.begin), token.text);
        const TokenList tokens = Tokenizer::tokenize(sentence);
        QCOMPARE(tokens.first().begin, qsizetype(2));
    }

    void embeddingsAreDeterministicPerWordAndSeed()
    {
        const RowVector the1 = TokenEmbedder::embed("The", 0, 16);
        QCOMPARE(TokenEmbedder::embed("the", 0, 16), the1);  // case-folded: one word, one vector
        QVERIFY(TokenEmbedder::embed("cat", 0, 16) != the1);
        QVERIFY(TokenEmbedder::embed("The", 1, 16) != the1);
        const Matrix x = TokenEmbedder::embed(Tokenizer::tokenize("the cat the"), 0, 16);
        QCOMPARE(RowVector(x.row(0)), RowVector(x.row(2)));
        // Standard normal entries: over many dimensions the mean is near 0 and the variance near 1.
        const RowVector wide = TokenEmbedder::embed("statistics", 3, 20000);
        QVERIFY(std::abs(wide.mean()) < 0.03f);
        QVERIFY(std::abs(wide.squaredNorm() / 20000 - 1.0f) < 0.05f);
    }

    void positionalEncodingIsTheSinusoidOfThePaper()
    {
        const Matrix pe = PositionalEncoding::sinusoidal(50, 8);
        QCOMPARE(pe(0, 0), 0.0f);
        QCOMPARE(pe(0, 1), 1.0f);
        QVERIFY(std::abs(pe(3, 0) - std::sin(3.0f)) < 1e-6f);
        QVERIFY(std::abs(pe(3, 1) - std::cos(3.0f)) < 1e-6f);
        // Dimension pair i = 1 (columns 2, 3): frequency 1 / 10000^(2/8).
        QVERIFY(std::abs(pe(7, 2) - float(std::sin(7.0 / std::pow(10000.0, 0.25)))) < 1e-6f);
        QVERIFY(std::abs(pe(7, 3) - float(std::cos(7.0 / std::pow(10000.0, 0.25)))) < 1e-6f);
        QCOMPARE(PositionalEncoding::sinusoidal(3, 5).cols(), Eigen::Index(5));  // odd widths work
    }
};

QTEST_GUILESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
