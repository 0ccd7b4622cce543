// A real Llama-family tokenizer.json end to end: Qwen2.5's (NFC, the Qwen2 Split regex, byte-level
// BPE over 151,643 tokens, 22 added tokens, the ByteLevel post-processor that adds no BOS), from
// tests/data/vocab/qwen2.5. Its expected_ids.json holds the ids Hugging Face published for this
// vocabulary (transformers' Qwen2 integration test) and those its JavaScript tokenizers give for
// the pipeline sentences (made by make_expected_ids.mjs; the script first checks that the two
// routes agree on the published sentences). Ids are compared exactly: a tokenizer has no tolerance.
#include "tests/core/TokenizerTestFiles.h"

#include "core/model/ModelTokenizer.h"
#include "tests/support/TestSuite.h"

using namespace attn;
using namespace attn::testing;

namespace {

const QString kQwenDir = kVocabDir + "/qwen2.5";

QJsonObject expectedIds()
{
    return QJsonDocument::fromJson(readAll(kQwenDir + "/expected_ids.json")).object();
}

}  // namespace

class TestTokenizersPublished : public QObject {
    Q_OBJECT

    std::unique_ptr<ModelTokenizer> m_tokenizer;

private slots:
    void initTestCase()
    {
        auto loaded = ModelTokenizer::load(kQwenDir);
        QVERIFY2(loaded, qPrintable(loaded ? QString() : loaded.error()));
        m_tokenizer = std::move(loaded).value();
    }

    void publishedIds_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<int>>("ids");
        const QJsonArray cases = expectedIds().value("published").toArray();
        QCOMPARE(cases.size(), 3);
        for (const QJsonValue& value : cases) {
            const QJsonObject c = value.toObject();
            QTest::addRow("%s", qPrintable(c.value("name").toString()))
                << c.value("text").toString() << intList(c.value("ids").toArray());
        }
    }
    void publishedIds()
    {
        QFETCH(QString, text);
        QFETCH(QList<int>, ids);
        const std::vector<int> got = m_tokenizer->encode(text);
        QCOMPARE(QList<int>(got.begin(), got.end()), ids);
    }

    void agreesWithHuggingFaceJs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<int>>("ids");
        QTest::addColumn<QStringList>("tokens");
        const QJsonArray cases = expectedIds().value("js").toArray();
        QCOMPARE(cases.size(), 35);
        for (const QJsonValue& value : cases) {
            const QJsonObject c = value.toObject();
            QStringList tokens;
            for (const QJsonValue& t : c.value("tokens").toArray())
                tokens.append(t.toString());
            QTest::addRow("%s", qPrintable(c.value("name").toString()))
                << c.value("text").toString() << intList(c.value("ids").toArray()) << tokens;
        }
    }
    void agreesWithHuggingFaceJs()
    {
        QFETCH(QString, text);
        QFETCH(QList<int>, ids);
        QFETCH(QStringList, tokens);
        const std::vector<int> got = m_tokenizer->encode(text);
        QStringList spelled;
        for (int id : got)
            spelled.append(m_tokenizer->tokenText(id));
        QCOMPARE(spelled, tokens);
        QCOMPARE(QList<int>(got.begin(), got.end()), ids);
    }

    // The vocabulary as the hub's Qwen2.5 models have it: 151,643 BPE tokens, then the added
    // tokens from <|endoftext|> (151643, the padding token) on; no BOS is added.
    void vocabularyAndSpecialTokens()
    {
        QCOMPARE(m_tokenizer->tokenId("<|endoftext|>"), std::optional<int>(151643));
        QCOMPARE(m_tokenizer->tokenId("<|im_start|>"), std::optional<int>(151644));
        QCOMPARE(m_tokenizer->tokenId("<|im_end|>"), std::optional<int>(151645));
        QCOMPARE(m_tokenizer->tokenText(151643), QString("<|endoftext|>"));
        QCOMPARE(m_tokenizer->tokenText(9707), QString("Hello"));
        QVERIFY(m_tokenizer->byteLevel());
        const std::vector<int> chat = m_tokenizer->encode("<|im_start|>hello<|im_end|>");
        QCOMPARE(QList<int>(chat.begin(), chat.end()), (QList<int>{151644, 14990, 151645}));
        const std::vector<int> hello = m_tokenizer->encode("Hello world");
        QCOMPARE(QList<int>(hello.begin(), hello.end()), (QList<int>{9707, 1879}));
    }
};

REGISTER_TEST_SUITE(TestTokenizersPublished, QCoreApplication)
#include "test_tokenizers_published.moc"
