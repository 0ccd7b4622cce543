// Word splitting, hash embeddings and positional encoding: the inputs every view starts from.
#include "core/ops/HashEmbedder.h"
#include "core/ops/PositionalEncoding.h"
#include "core/text/WordSplitter.h"
#include "tests/support/TestSuite.h"

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

class TestSentenceInputs : public QObject {
    Q_OBJECT

private slots:
    void splits_data()
    {
        QTest::addColumn<QString>("sentence");
        QTest::addColumn<QStringList>("expected");
        QTest::addRow("default sentence")
            << "The cat sat on the rug and it was dry-cleaned."
            << QStringList{"The", "cat", "sat", "on", "the", "rug", "and", "it", "was", "dry", "-", "cleaned", "."};
        QTest::addRow("apostrophe inside a word") << "don't stop" << QStringList{"don't", "stop"};
        QTest::addRow("quotes are punctuation") << "'hi' she said" << QStringList{"'", "hi", "'", "she", "said"};
        QTest::addRow("accents, precomposed and combining")
            << QString::fromUtf8("café nai\xcc\x88ve")
            << QStringList{QString::fromUtf8("café"), QString::fromUtf8("nai\xcc\x88ve")};
        QTest::addRow("CJK, one character each") << QString::fromUtf8("我爱猫。")
                                                 << QStringList{QString::fromUtf8("我"), QString::fromUtf8("爱"),
                                                                QString::fromUtf8("猫"), QString::fromUtf8("。")};
        QTest::addRow("emoji with modifier stays whole")
            << QString::fromUtf8("hi 👋🏽!") << QStringList{"hi", QString::fromUtf8("👋🏽"), "!"};
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
        QCOMPARE(texts(WordSplitter::split(sentence)), expected);
    }

    void rangesPointBackIntoTheSentence()
    {
        const QString sentence = QString::fromUtf8("  Hé, 👋🏽 dry-cleaned!");
        for (const Token& token : WordSplitter::split(sentence))
            QCOMPARE(sentence.mid(token.begin, token.end - token.begin), token.text);
        const TokenList tokens = WordSplitter::split(sentence);
        QCOMPARE(tokens.first().begin, qsizetype(2));
    }

    void embeddingsAreDeterministicPerWordAndSeed()
    {
        const RowVector the1 = HashEmbedder::embed("The", 0, 16);
        QCOMPARE(HashEmbedder::embed("the", 0, 16), the1);  // case-folded: one word, one vector
        QVERIFY(HashEmbedder::embed("cat", 0, 16) != the1);
        QVERIFY(HashEmbedder::embed("The", 1, 16) != the1);
        const Matrix x = HashEmbedder::embed(WordSplitter::split("the cat the"), 0, 16);
        QCOMPARE(RowVector(x.row(0)), RowVector(x.row(2)));
        // Standard normal entries: over many dimensions the mean is near 0 and the variance near 1.
        const RowVector wide = HashEmbedder::embed("statistics", 3, 20000);
        QVERIFY(std::abs(wide.mean()) < 0.03f);
        QVERIFY(std::abs(wide.squaredNorm() / 20000 - 1.0f) < 0.05f);
    }

    void positionalEncodingIsTheSinusoidOfThePaper()
    {
        const Matrix pe = PositionalEncoding::sinusoidal(50, 8);
        QCOMPARE(pe(0, 0), 0.0f);
        QCOMPARE(pe(0, 1), 1.0f);
        // The table is the double formula rounded once to float32 (no kernel, no float32 sum), so
        // the same double operations rounded give the same bits: compared exactly.
        QCOMPARE(pe(3, 0), float(std::sin(3.0 / std::pow(10000.0, 0.0))));
        QCOMPARE(pe(3, 1), float(std::cos(3.0 / std::pow(10000.0, 0.0))));
        // Dimension pair i = 1 (columns 2, 3): frequency 1 / 10000^(2/8).
        QCOMPARE(pe(7, 2), float(std::sin(7.0 / std::pow(10000.0, 2.0 / 8))));
        QCOMPARE(pe(7, 3), float(std::cos(7.0 / std::pow(10000.0, 2.0 / 8))));
        QCOMPARE(PositionalEncoding::sinusoidal(3, 5).cols(), Eigen::Index(5));  // odd widths work
    }

    // The embedding cache changes speed only: every row is the vector generated afresh, also
    // after the cache has been flushed by vectors larger than its whole budget.
    void cachedEmbeddingsEqualFreshOnes()
    {
        const TokenList tokens = WordSplitter::split(QStringLiteral("The cat sat on the mat, the CAT"));
        const Matrix first = HashEmbedder::embed(tokens, 7, 64);  // fills the cache
        QVERIFY(HashEmbedder::cachedVectorCount() > 0);
        const Matrix again = HashEmbedder::embed(tokens, 7, 64);  // served from it
        QCOMPARE(again, first);
        for (qsizetype t = 0; t < tokens.size(); ++t)
            QCOMPARE(RowVector(first.row(t)), HashEmbedder::generate(tokens[t].text, 7, 64));
        QCOMPARE(RowVector(first.row(1)), RowVector(first.row(8)));                         // "cat" and "CAT"
        QVERIFY(HashEmbedder::embed("cat", 8, 64) != HashEmbedder::embed("cat", 7, 64));    // seed in the key
        QCOMPARE(HashEmbedder::embed("cat", 7, 32), HashEmbedder::generate("cat", 7, 32));  // dim in the key
        // Evict everything: one vector as large as the whole budget, then one larger (never cached).
        const int huge = int(HashEmbedder::kCacheFloats);
        QCOMPARE(HashEmbedder::embed("flush", 1, huge).size(), Eigen::Index(huge));
        QCOMPARE(HashEmbedder::embed("flush", 1, huge + 1), HashEmbedder::generate("flush", 1, huge + 1));
        QCOMPARE(HashEmbedder::embed(tokens, 7, 64), first);
    }

    // The cached table is the table computed afresh, bit for bit, whatever the order of requests,
    // and both are the paper's formula evaluated element by element.
    void cachedPositionalEncodingEqualsFreshOne()
    {
        const int dim = 10;
        Matrix reference(40, dim);  // (seq_len, dim): the formula, literally
        for (int pos = 0; pos < 40; ++pos)
            for (int i = 0; i < dim; i += 2) {
                const double angle = pos / std::pow(10000.0, double(i) / dim);
                reference(pos, i) = float(std::sin(angle));
                reference(pos, i + 1) = float(std::cos(angle));
            }
        QCOMPARE(PositionalEncoding::compute(40, dim), reference);
        QCOMPARE(PositionalEncoding::sinusoidal(5, dim), Matrix(reference.topRows(5)));
        QCOMPARE(PositionalEncoding::sinusoidal(40, dim), reference);                      // grows the table
        QCOMPARE(PositionalEncoding::sinusoidal(17, dim), Matrix(reference.topRows(17)));  // a slice of it
        QCOMPARE(PositionalEncoding::sinusoidal(1, 3), PositionalEncoding::compute(1, 3));
        QCOMPARE(PositionalEncoding::sinusoidal(0, dim).rows(), Eigen::Index(0));
    }
};

REGISTER_TEST_SUITE(TestSentenceInputs, QCoreApplication)
#include "test_sentence_inputs.moc"
