// GPT-2's byte-level BPE and BERT's WordPiece against Hugging Face on the real vocabularies: the
// ids its JavaScript tokenizers give (tests/data/vocab/expected_ids.json, made by
// make_expected_ids.mjs), ids published by OpenAI / Hugging Face, vocabulary lookups, special
// tokens and offsets, the pre-tokenizer's split, and odd input, through every route a folder may
// hold the tokenizer in (legacy files, tokenizer.json with either merge spelling).
#include "tests/core/TokenizerTestFiles.h"
#include "tests/support/TestSuite.h"

#include <map>

using namespace attn;
using namespace attn::testing;

class TestTokenizersVocab : public TokenizerTestBase {
    Q_OBJECT

private:
    std::map<QString, std::unique_ptr<SubwordTokenizer>> m_tokenizers;  // by route

    const SubwordTokenizer& tokenizer(const QString& route) { return *m_tokenizers.at(route); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_temp.isValid());
        auto gpt2Files = loadTokenizer(kVocabDir + "/gpt2");
        QVERIFY2(gpt2Files, qPrintable(gpt2Files.error()));
        m_tokenizers["gpt2 vocab.json+merges.txt"] = std::move(gpt2Files).value();
        m_tokenizers["gpt2 tokenizer.json \"a b\" merges"] = loadJson("gpt2-strings", gpt2TokenizerJson(false));
        m_tokenizers["gpt2 tokenizer.json [a,b] merges"] = loadJson("gpt2-pairs", gpt2TokenizerJson(true));
        auto bertFiles = loadTokenizer(kVocabDir + "/bert-base-uncased");
        QVERIFY2(bertFiles, qPrintable(bertFiles.error()));
        m_tokenizers["bert vocab.txt"] = std::move(bertFiles).value();
        m_tokenizers["bert tokenizer.json"] = loadJson("bert-json", bertTokenizerJson());
    }

    void agreesWithHuggingFaceJs_data()
    {
        QTest::addColumn<QString>("route");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<int>>("ids");
        QTest::addColumn<QStringList>("tokens");
        const QJsonObject expected =
            QJsonDocument::fromJson(readAll(kVocabDir + "/expected_ids.json")).object().value("tokenizers").toObject();
        QCOMPARE(expected.value("gpt2").toArray().size(), 70);
        QCOMPARE(expected.value("bert-base-uncased").toArray().size(), 70);
        for (const auto& [route, tokenizer] : m_tokenizers) {
            const QString family = route.startsWith("gpt2") ? "gpt2" : "bert-base-uncased";
            for (const QJsonValue& value : expected.value(family).toArray()) {
                const QJsonObject c = value.toObject();
                QStringList tokens;
                for (const QJsonValue& t : c.value("tokens").toArray())
                    tokens.append(t.toString());
                QTest::addRow("%s | %s", qPrintable(route), qPrintable(c.value("name").toString()))
                    << route << c.value("text").toString() << intList(c.value("ids").toArray()) << tokens;
            }
        }
    }
    void agreesWithHuggingFaceJs()
    {
        QFETCH(QString, route);
        QFETCH(QString, text);
        QFETCH(QList<int>, ids);
        QFETCH(QStringList, tokens);
        const SubwordEncoding encoding = tokenizer(route).encode(text);
        QCOMPARE(tokenTexts(encoding), tokens);
        QCOMPARE(encoding.ids, ids);
    }

    void publishedIds_data()
    {
        QTest::addColumn<QString>("route");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<int>>("ids");
        QTest::addRow("gpt2 hello world") << "gpt2 vocab.json+merges.txt"
                                          << "hello world" << QList<int>{31373, 995};
        QTest::addRow("gpt2 Hello World") << "gpt2 vocab.json+merges.txt"
                                          << "Hello World" << QList<int>{15496, 2159};
        QTest::addRow("gpt2 dog") << "gpt2 vocab.json+merges.txt"
                                  << "Hello, my dog is cute" << QList<int>{15496, 11, 616, 3290, 318, 13779};
        QTest::addRow("bert dog") << "bert vocab.txt"
                                  << "Hello, my dog is cute"
                                  << QList<int>{101, 7592, 1010, 2026, 3899, 2003, 10140, 102};
        QTest::addRow("bert dog, tokenizer.json")
            << "bert tokenizer.json"
            << "Hello, my dog is cute" << QList<int>{101, 7592, 1010, 2026, 3899, 2003, 10140, 102};
    }
    void publishedIds()
    {
        QFETCH(QString, route);
        QFETCH(QString, text);
        QFETCH(QList<int>, ids);
        QCOMPARE(tokenizer(route).encode(text).ids, ids);
    }

    void vocabularyLookups()
    {
        const SubwordTokenizer& gpt2 = tokenizer("gpt2 vocab.json+merges.txt");
        QCOMPARE(gpt2.vocabSize(), 50257);
        QCOMPARE(gpt2.idToToken(50256), QString("<|endoftext|>"));
        QCOMPARE(gpt2.idToToken(995), QString::fromUtf8("Ġworld"));
        QCOMPARE(gpt2.idToToken(-1), QString());
        QCOMPARE(gpt2.idToToken(50257), QString());
        QVERIFY(gpt2.isSpecial(50256));
        QVERIFY(!gpt2.isSpecial(995));
        const SubwordTokenizer& bert = tokenizer("bert vocab.txt");
        QCOMPARE(bert.vocabSize(), 30522);
        QCOMPARE(bert.tokenToId("[PAD]"), std::optional<int>(0));
        QCOMPARE(bert.tokenToId("[UNK]"), std::optional<int>(100));
        QCOMPARE(bert.tokenToId("[CLS]"), std::optional<int>(101));
        QCOMPARE(bert.tokenToId("[SEP]"), std::optional<int>(102));
        QCOMPARE(bert.tokenToId("[MASK]"), std::optional<int>(103));
        QCOMPARE(bert.tokenToId("hello"), std::optional<int>(7592));
        QCOMPARE(bert.tokenToId("world"), std::optional<int>(2088));
        QCOMPARE(bert.tokenToId("no such token"), std::nullopt);
        QCOMPARE(bert.idToToken(2075), QString("##ing"));
        QCOMPARE(tokenizer("bert tokenizer.json").vocabSize(), 30522);
    }

    void specialTokensAndOffsets()
    {
        const SubwordTokenizer& gpt2 = tokenizer("gpt2 vocab.json+merges.txt");
        const QString text = "Hello<|endoftext|> world";
        const SubwordEncoding e = gpt2.encode(text);
        QCOMPARE(tokenTexts(e), (QStringList{"Hello", "<|endoftext|>", QString::fromUtf8("Ġworld")}));
        QCOMPARE(e.special, (QList<bool>{false, true, false}));
        // GPT-2's post-processor does not trim offsets: a token's leading space is in its range.
        QCOMPARE(ranges(e), (QList<std::pair<qsizetype, qsizetype>>{{0, 5}, {5, 18}, {18, 24}}));

        const SubwordTokenizer& bert = tokenizer("bert vocab.txt");
        const SubwordEncoding b = bert.encode(QString::fromUtf8("UNwantéd,running [MASK]"));
        QCOMPARE(tokenTexts(b), (QStringList{"[CLS]", "unwanted", ",", "running", "[MASK]", "[SEP]"}));
        QCOMPARE(b.special, (QList<bool>{true, false, false, false, true, true}));
        // "unwanted" is spelt without the accent but still covers the 'é' of the input.
        QCOMPARE(ranges(b),
                 (QList<std::pair<qsizetype, qsizetype>>{{0, 0}, {0, 8}, {8, 9}, {9, 16}, {17, 23}, {0, 0}}));
        QCOMPARE(bert.encode("hello world", false).ids, (QList<int>{7592, 2088}));
        QCOMPARE(bert.encode("", true).ids, (QList<int>{101, 102}));
        QCOMPARE(bert.encode("", false).ids, QList<int>{});
    }

    void rangesCoverTheirCharacters_data()
    {
        QTest::addColumn<QString>("route");
        QTest::addColumn<QString>("text");
        const QStringList texts{QString::fromUtf8("Hello,  wörld!\n\tcode()"), QString::fromUtf8("我爱猫 and 東京"),
                                QString::fromUtf8("hi 👋🏽 👨‍👩‍👧‍👦!"),
                                QString::fromUtf8("cafe\xcc\x81 İstanbul"),
                                QString::fromUtf8("a\xc2\xa0\xc2\xa0 b\xe3\x80\x80 c")};
        for (const QString route : {"gpt2 vocab.json+merges.txt", "bert vocab.txt"})
            for (qsizetype i = 0; i < texts.size(); ++i)
                QTest::addRow("%s %lld", qPrintable(route), qlonglong(i)) << QString(route) << texts[i];
    }
    void rangesCoverTheirCharacters()
    {
        QFETCH(QString, route);
        QFETCH(QString, text);
        const SubwordEncoding e = tokenizer(route).encode(text, false);
        QVERIFY(e.size() > 0);
        qsizetype previousBegin = 0;
        for (const Token& token : e.tokens) {
            QVERIFY(0 <= token.begin && token.begin < token.end && token.end <= text.size());
            QVERIFY(token.begin >= previousBegin);
            previousBegin = token.begin;
            // Never half a surrogate pair.
            QVERIFY(!text.at(token.begin).isLowSurrogate());
            QVERIFY(!text.at(token.end - 1).isHighSurrogate());
            if (route.startsWith("gpt2")) {
                // The token's bytes are bytes of the characters it points at.
                QByteArray bytes;
                for (QChar c : token.text)
                    bytes.append(char(*ByteLevelAlphabet::byteForChar(c)));
                QVERIFY2(text.mid(token.begin, token.end - token.begin).toUtf8().contains(bytes),
                         qPrintable(token.text));
            }
        }
    }

    void byteLevelSplitFollowsOniguruma_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("words");
        QTest::addRow("space run before a word") << "a   b" << QStringList{"a", "ĠĠ", "Ġb"};
        QTest::addRow("trailing spaces") << "a  " << QStringList{"a", "ĠĠ"};
        QTest::addRow("contraction") << "I'm" << QStringList{"I", "'m"};
        QTest::addRow("no-break space is white space") << "a\u00a0b" << QStringList{"a", "Âł", "b"};
        QTest::addRow("ideographic space is white space") << "a \u3000b" << QStringList{"a", "Ġ", "ãĢĢ", "b"};
        QTest::addRow("next line is white space") << "a \u0085b" << QStringList{"a", "Ġ", "Âħ", "b"};
        QTest::addRow("byte-order mark is not") << "x \ufeffy" << QStringList{"x", "Ġï»¿", "y"};
        // Built from QChar: a QString made from UTF-8 drops a leading byte-order mark.
        QTest::addRow("byte-order mark first") << QString(QChar(0xFEFF)) + "hi" << QStringList{"ï»¿", "hi"};
        QTest::addRow("digits apart from letters") << "abc123" << QStringList{"abc", "123"};
    }
    void byteLevelSplitFollowsOniguruma()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, words);
        const ByteLevelPreTokenizer pre(false, true);
        QStringList got;
        for (const NormalizedText& word : pre.split(NormalizedText::fromInput(text, 0, text.size())))
            got.append(word.text());
        QCOMPARE(got, words);
    }

    void oddInputNeverBreaksTheTokenizers()
    {
        QString odd;
        odd.append(QChar(0xD800));  // lone surrogates
        odd.append("ab");
        odd.append(QChar(0xDC00));
        for (char32_t c = 0; c < 0x800; c += 7)
            odd.append(QString::fromUcs4(&c, 1));
        odd.append(QString("x").repeated(5000));
        for (const auto& [route, t] : m_tokenizers) {
            const SubwordEncoding e = t->encode(odd);
            QCOMPARE(e.tokens.size(), e.ids.size());
            QCOMPARE(e.special.size(), e.ids.size());
            for (qsizetype i = 0; i < e.size(); ++i) {
                QVERIFY2(e.ids[i] >= 0 && e.ids[i] < t->vocabSize(), qPrintable(route));
                QVERIFY(e.tokens[i].begin >= 0 && e.tokens[i].end <= odd.size());
            }
        }
        // A lone surrogate is read as U+FFFD, which byte-level BPE spells in three bytes.
        QCOMPARE(tokenizer("gpt2 vocab.json+merges.txt").encode(QString(QChar(0xDC00))).ids,
                 tokenizer("gpt2 vocab.json+merges.txt").encode(QString(QChar(0xFFFD))).ids);
    }
};

REGISTER_TEST_SUITE(TestTokenizersVocab, QCoreApplication)
#include "test_tokenizers_vocab.moc"
