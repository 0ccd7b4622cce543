// GPT-2's byte-level BPE and BERT's WordPiece against Hugging Face: the ids its JavaScript
// tokenizers give for real vocabularies (tests/data/vocab/expected_ids.json, made by
// make_expected_ids.mjs), ids published by OpenAI / Hugging Face, and transformers' own toy
// vocabulary tests; then the details: offsets, special tokens, BPE and WordPiece rules.
#include "core/text/ByteLevelAlphabet.h"
#include "core/text/ByteLevelPreTokenizer.h"
#include "core/text/TokenizerLoader.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

using namespace attn;

namespace {

const QString kVocabDir = QStringLiteral(ATTENTION_SOURCE_DIR "/tests/data/vocab");

QByteArray readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

void writeFile(const QString& dir, const QString& name, const QByteArray& bytes)
{
    QDir().mkpath(dir);
    QFile file(QDir(dir).filePath(name));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(file.fileName()));
}

void writeJson(const QString& dir, const QString& name, const QJsonObject& object)
{
    writeFile(dir, name, QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QJsonObject parseObject(const char* json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

// The hub's gpt2 tokenizer.json, assembled from the vocabulary files.
QJsonObject gpt2TokenizerJson(bool pairMerges)
{
    const QJsonObject vocab = QJsonDocument::fromJson(readAll(kVocabDir + "/gpt2/vocab.json")).object();
    QJsonArray merges;
    const QList<QByteArray> lines = readAll(kVocabDir + "/gpt2/merges.txt").split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString line = QString::fromUtf8(lines[i]);
        if (line.isEmpty() || (i == 0 && line.startsWith("#version")))
            continue;
        if (pairMerges)
            merges.append(QJsonArray::fromStringList(line.split(' ')));
        else
            merges.append(line);
    }
    QJsonObject root = parseObject(R"({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "single_word": false, "lstrip": false,
                          "rstrip": false, "normalized": true, "special": true}],
        "normalizer": null,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
        "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}})");
    QJsonObject model = parseObject(R"({"type": "BPE", "dropout": null, "unk_token": null,
        "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false})");
    model["vocab"] = vocab;
    model["merges"] = merges;
    root["model"] = model;
    return root;
}

QJsonObject bertVocab(const QString& path)
{
    QJsonObject vocab;
    const QList<QByteArray> lines = readAll(path).split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i)
        if (!lines[i].isEmpty())
            vocab[QString::fromUtf8(lines[i])] = int(i);
    return vocab;
}

// The hub's bert-base-uncased tokenizer.json, assembled from vocab.txt. This one writes its
// post-processor as the older BertProcessing, as some DistilBERT files do.
QJsonObject bertTokenizerJson()
{
    QJsonObject root = parseObject(R"({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [
          {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
          {"id": 100, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
          {"id": 101, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
          {"id": 102, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
          {"id": 103, "content": "[MASK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true}})");
    QJsonObject model = parseObject(R"({"type": "WordPiece", "unk_token": "[UNK]",
        "continuing_subword_prefix": "##", "max_input_chars_per_word": 100})");
    model["vocab"] = bertVocab(kVocabDir + "/bert-base-uncased/vocab.txt");
    root["model"] = model;
    return root;
}

QStringList tokenTexts(const SubwordEncoding& encoding)
{
    QStringList out;
    for (const Token& token : encoding.tokens)
        out.append(token.text);
    return out;
}

QList<std::pair<qsizetype, qsizetype>> ranges(const SubwordEncoding& encoding)
{
    QList<std::pair<qsizetype, qsizetype>> out;
    for (const Token& token : encoding.tokens)
        out.append({token.begin, token.end});
    return out;
}

QList<int> intList(const QJsonArray& array)
{
    QList<int> out;
    for (const QJsonValue& v : array)
        out.append(v.toInt());
    return out;
}

QString loadError(const QString& dir)
{
    const auto tokenizer = loadTokenizer(dir);
    return tokenizer ? QString() : tokenizer.error();
}

}  // namespace

class TestSubwordTokenizers : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_temp;
    std::map<QString, std::unique_ptr<SubwordTokenizer>> m_tokenizers;  // by route

    const SubwordTokenizer& tokenizer(const QString& route) { return *m_tokenizers.at(route); }
    QString tempPath(const QString& name) { return m_temp.filePath(name); }

    std::unique_ptr<SubwordTokenizer> loadJson(const QString& name, const QJsonObject& json)
    {
        writeJson(tempPath(name), "tokenizer.json", json);
        auto loaded = loadTokenizer(tempPath(name));
        if (!loaded)
            qFatal("%s: %s", qPrintable(name), qPrintable(loaded.error()));
        return std::move(loaded).value();
    }

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

    // transformers' own GPT-2 tokenizer test: its toy vocabulary and merges, with add_prefix_space.
    void transformersGpt2ToyVocabulary()
    {
        const QString dir = tempPath("gpt2-toy");
        const QStringList tokens{"l",
                                 "o",
                                 "w",
                                 "e",
                                 "r",
                                 "s",
                                 "t",
                                 "i",
                                 "d",
                                 "n",
                                 "\u0120",
                                 "\u0120l",
                                 "\u0120n",
                                 "\u0120lo",
                                 "\u0120low",
                                 "er",
                                 "\u0120lowest",
                                 "\u0120newer",
                                 "\u0120wider",
                                 "<unk>",
                                 "<|endoftext|>"};
        QJsonObject vocab;
        for (qsizetype i = 0; i < tokens.size(); ++i)
            vocab[tokens[i]] = int(i);
        writeJson(dir, "vocab.json", vocab);
        writeFile(dir, "merges.txt", QString("#version: 0.2\n\u0120 l\n\u0120l o\n\u0120lo w\ne r\n").toUtf8());
        writeJson(dir, "tokenizer_config.json", parseObject(R"({"add_prefix_space": true, "unk_token": "<unk>"})"));
        auto toy = loadTokenizer(dir);
        QVERIFY2(toy, qPrintable(toy.error()));
        const SubwordEncoding e = (*toy)->encode("lower newer");
        QCOMPARE(tokenTexts(e), (QStringList{"\u0120low", "er", "\u0120", "n", "e", "w", "er"}));
        QCOMPARE(e.ids, (QList<int>{14, 15, 10, 9, 3, 2, 15}));
        QCOMPARE((*toy)->tokenToId("<unk>"), std::optional<int>(19));
        QVERIFY((*toy)->isSpecial(19));
        // The prefix space is not in the input: the first token starts at 0.
        QCOMPARE(e.tokens.first().begin, qsizetype(0));
    }

    // transformers' own BERT (legacy WordPiece) tokenizer test: its toy vocabulary.
    void transformersBertToyVocabulary()
    {
        const QString dir = tempPath("bert-toy");
        const QByteArray vocab =
            "[UNK]\n[CLS]\n[SEP]\n[PAD]\n[MASK]\nwant\n##want\n##ed\nwa\nun\nrunn\n##ing\n,\nlow\nlowest\n";
        writeFile(dir, "vocab.txt", vocab);
        auto toy = loadTokenizer(dir);
        QVERIFY2(toy, qPrintable(toy.error()));
        const SubwordEncoding e = (*toy)->encode(QString::fromUtf8("UNwantéd,running"), false);
        QCOMPARE(tokenTexts(e), (QStringList{"un", "##want", "##ed", ",", "runn", "##ing"}));
        QCOMPARE(e.ids, (QList<int>{9, 6, 7, 12, 10, 11}));
        QCOMPARE((*toy)->encode(QString::fromUtf8("UNwantéd,running")).ids, (QList<int>{1, 9, 6, 7, 12, 10, 11, 2}));
        QCOMPARE(tokenTexts((*toy)->encode(QString::fromUtf8("want博推want"), false)),
                 (QStringList{"want", "[UNK]", "[UNK]", "want"}));
        QCOMPARE(tokenTexts((*toy)->encode("lowest [UNK]", false)), (QStringList{"lowest", "[UNK]"}));

        writeJson(dir, "tokenizer_config.json", parseObject(R"({"tokenize_chinese_chars": false})"));
        auto unspaced = loadTokenizer(dir);
        QVERIFY2(unspaced, qPrintable(unspaced.error()));
        QCOMPARE(tokenTexts((*unspaced)->encode(QString::fromUtf8("want博推want"), false)), QStringList{"[UNK]"});
    }

    void bertCaseAndAccentOptions()
    {
        const QString dir = tempPath("bert-cased");
        writeFile(dir, "vocab.txt",
                  QString("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nHello\nhello\nHéllo\nhéllo\n").toUtf8());
        writeJson(dir, "tokenizer_config.json", parseObject(R"({"do_lower_case": false})"));
        auto cased = loadTokenizer(dir);
        QVERIFY2(cased, qPrintable(cased.error()));
        // Not lower-casing keeps accents unless strip_accents says otherwise.
        QCOMPARE(tokenTexts((*cased)->encode(QString::fromUtf8("Héllo Hello hello"), false)),
                 (QStringList{"Héllo", "Hello", "hello"}));
        writeJson(dir, "tokenizer_config.json", parseObject(R"({"do_lower_case": true, "strip_accents": false})"));
        auto keepAccents = loadTokenizer(dir);
        QVERIFY2(keepAccents, qPrintable(keepAccents.error()));
        QCOMPARE(tokenTexts((*keepAccents)->encode(QString::fromUtf8("HÉLLO"), false)), QStringList{"héllo"});
        writeFile(dir, "tokenizer_config.json", "{}");
        auto lower = loadTokenizer(dir);
        QVERIFY2(lower, qPrintable(lower.error()));
        QCOMPARE(tokenTexts((*lower)->encode(QString::fromUtf8("HÉLLO He\xcc\x81llo"), false)),
                 (QStringList{"hello", "hello"}));
    }

    void wordPieceCountsCodePoints()
    {
        // 𝒜 is two UTF-16 units; the limit of 100 is on characters.
        const QString a = QString::fromUtf8("𝒜");
        QJsonObject json = parseObject(R"({"model": {"type": "WordPiece", "unk_token": "[UNK]",
            "vocab": {"[UNK]": 0, "##\ud835\udc9c": 2}}, "pre_tokenizer": {"type": "BertPreTokenizer"}})");
        QJsonObject model = json["model"].toObject();
        QJsonObject vocab = model["vocab"].toObject();
        vocab[a] = 1;
        model["vocab"] = vocab;
        json["model"] = model;
        auto wp = loadJson("wordpiece-astral", json);
        QCOMPARE(wp->encode(a.repeated(100)).size(), 100);
        QCOMPARE(wp->encode(a.repeated(101)).ids, QList<int>{0});
        QCOMPARE(wp->encode(a.repeated(101)).tokens.first().end, qsizetype(202));
    }

    // Ids may be sparse: the tables hold the vocabulary's tokens, not one slot per id up to the
    // highest (a 2-token file with the id 16777215 cost 16 million empty strings, 400 MB).
    void sparseIds()
    {
        auto wp = loadJson("wordpiece-sparse", parseObject(R"({"model": {"type": "WordPiece", "unk_token": "[UNK]",
            "vocab": {"[UNK]": 0, "a": 16777215}}, "pre_tokenizer": {"type": "BertPreTokenizer"}})"));
        QCOMPARE(wp->vocabSize(), 16777216);
        QCOMPARE(wp->idToToken(16777215), QStringLiteral("a"));
        QCOMPARE(wp->idToToken(1), QString());
        QCOMPARE(wp->encode("a b", false).ids, (QList<int>{16777215, 0}));
        auto bpe = loadJson("bpe-sparse", parseObject(R"({"model": {"type": "BPE", "unk_token": "<unk>",
            "vocab": {"<unk>": 0, "a": 7, "b": 16777215, "ab": 9}, "merges": ["a b"]}})"));
        QCOMPARE(bpe->vocabSize(), 16777216);
        QCOMPARE(bpe->idToToken(16777215), QStringLiteral("b"));
        QCOMPARE(bpe->encode("abb").ids, (QList<int>{9, 16777215}));
    }

    void bpeRules()
    {
        // Unknown characters, one token each or fused, as in Hugging Face's own model tests.
        const char* unk = R"({"model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": %1,
            "vocab": {"<unk>": 0, "a": 1, "b": 2}, "merges": []}})";
        auto separate = loadJson("bpe-unk", parseObject(QString(unk).arg("false").toUtf8().constData()));
        QCOMPARE(separate->encode("accb").ids, (QList<int>{1, 0, 0, 2}));
        auto fused = loadJson("bpe-unk-fused", parseObject(QString(unk).arg("true").toUtf8().constData()));
        QCOMPARE(fused->encode("accb").ids, (QList<int>{1, 0, 2}));
        QCOMPARE(ranges(fused->encode("accb")), (QList<std::pair<qsizetype, qsizetype>>{{0, 1}, {1, 3}, {3, 4}}));

        // Merges by rank, not by position: "unrelated" as in Hugging Face's model tests.
        auto ranked = loadJson("bpe-rank", parseObject(R"({"model": {"type": "BPE",
            "vocab": {"u": 0, "n": 1, "r": 2, "e": 3, "l": 4, "a": 5, "t": 6, "d": 7, "re": 8, "at": 9, "ed": 10,
                      "un": 11, "ated": 12, "rel": 13, "related": 14, "unrelated": 15},
            "merges": ["r e", "a t", "e d", "u n", "at ed", "re l", "rel ated", "un related"]}})"));
        QCOMPARE(ranked->encode("unrelated").ids, QList<int>{15});
        QCOMPARE(ranked->encode("unreal").ids, (QList<int>{11, 8, 5, 4}));

        // The same pair twice: the leftmost merges first.
        auto leftmost = loadJson("bpe-leftmost", parseObject(R"({"model": {"type": "BPE",
            "vocab": {"a": 0, "aa": 1}, "merges": [["a", "a"]]}})"));
        QCOMPARE(leftmost->encode("aaa").ids, (QList<int>{1, 0}));

        // ignore_merges: a word of the vocabulary is taken whole.
        const char* whole = R"({"model": {"type": "BPE", "ignore_merges": %1,
            "vocab": {"a": 0, "b": 1, "ab": 2, "abab": 3}, "merges": ["a b"]}})";
        QCOMPARE(
            loadJson("bpe-merges", parseObject(QString(whole).arg("false").toUtf8().constData()))->encode("abab").ids,
            (QList<int>{2, 2}));
        QCOMPARE(
            loadJson("bpe-ignore", parseObject(QString(whole).arg("true").toUtf8().constData()))->encode("abab").ids,
            QList<int>{3});
    }

    void byteLevelTrimOffsets()
    {
        QJsonObject json = gpt2TokenizerJson(false);
        json["post_processor"] =
            parseObject(R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true})");
        auto trimmed = loadJson("gpt2-trimmed", json);
        QCOMPARE(ranges(trimmed->encode("Hello  world")),
                 (QList<std::pair<qsizetype, qsizetype>>{{0, 5}, {6, 6}, {7, 12}}));
        QCOMPARE(trimmed->encode("Hello  world").ids,
                 tokenizer("gpt2 vocab.json+merges.txt").encode("Hello  world").ids);
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

    void malformedTokenizerJsonIsRefused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        const QByteArray bpe = R"("model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})";
        auto with = [&](const char* rest) { return "{" + bpe + "," + QByteArray(rest) + "}"; };
        QTest::addRow("bad JSON") << QByteArray("{\"model\": ") << "tokenizer.json: not valid JSON";
        QTest::addRow("array at the top") << QByteArray("[]") << "tokenizer.json: the top level is not a JSON object";
        QTest::addRow("no model") << QByteArray("{}") << "tokenizer.json: model is missing or not an object";
        QTest::addRow("no vocab") << QByteArray(R"({"model": {"type": "BPE", "merges": []}})")
                                  << "tokenizer.json: model.vocab is missing or not an object";
        QTest::addRow("empty vocab") << QByteArray(R"({"model": {"type": "BPE", "vocab": {}, "merges": []}})")
                                     << "tokenizer.json: model.vocab is empty";
        QTest::addRow("negative id")
            << QByteArray(R"({"model": {"type": "BPE", "vocab": {"a": -1}, "merges": []}})")
            << "tokenizer.json: model.vocab: the id of \"a\" is not a whole number from 0 to 16777215";
        QTest::addRow("fractional id")
            << QByteArray(R"({"model": {"type": "BPE", "vocab": {"a": 0.5}, "merges": []}})")
            << "tokenizer.json: model.vocab: the id of \"a\" is not a whole number from 0 to 16777215";
        QTest::addRow("huge id")
            << QByteArray(R"({"model": {"type": "BPE", "vocab": {"a": 1e12}, "merges": []}})")
            << "tokenizer.json: model.vocab: the id of \"a\" is not a whole number from 0 to 16777215";
        QTest::addRow("id twice") << QByteArray(
                                         R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 0}, "merges": []}})")
                                  << "tokenizer.json: model.vocab: id 0 is given to both \"a\" and \"b\"";
        QTest::addRow("merge of unknown symbol")
            << QByteArray(R"({"model": {"type": "BPE", "vocab": {"a": 0, "ab": 1}, "merges": ["a b"]}})")
            << "tokenizer.json: model: merge 1 (\"a b\") needs \"b\", which is not in the vocabulary";
        QTest::addRow("merge making an unknown token")
            << QByteArray(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]}})")
            << "tokenizer.json: model: merge 1 (\"a b\") needs \"ab\", which is not in the vocabulary";
        QTest::addRow("merge of three symbols")
            << QByteArray(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a a a"]}})")
            << "tokenizer.json: model.merges[0] is not two symbols separated by one space like \"a b\" (as the first "
               "merge is)";
        QTest::addRow("merges of both spellings")
            << QByteArray(R"({"model": {"type": "BPE", "vocab": {"a": 0, "aa": 1}, "merges": [["a", "a"], "a a"]}})")
            << "tokenizer.json: model.merges[1] is not a pair of two non-empty strings like [\"a\", \"b\"] (as the "
               "first merge is)";
        QTest::addRow("merges not an array")
            << QByteArray(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": "a a"}})")
            << "tokenizer.json: model.merges must be an array";
        QTest::addRow("unknown token outside the vocabulary")
            << QByteArray(R"({"model": {"type": "BPE", "unk_token": "<unk>", "vocab": {"a": 0}, "merges": []}})")
            << "tokenizer.json: model: the unknown token \"<unk>\" is not in the vocabulary";
        QTest::addRow("dropout")
            << QByteArray(R"({"model": {"type": "BPE", "dropout": 0.1, "vocab": {"a": 0}, "merges": []}})")
            << "tokenizer.json: model.dropout is not supported: it makes tokenisation random";
        QTest::addRow("byte fallback")
            << QByteArray(R"({"model": {"type": "BPE", "byte_fallback": true, "vocab": {"a": 0}, "merges": []}})")
            << "tokenizer.json: model.byte_fallback is not supported";
        QTest::addRow("subword prefix on BPE")
            << QByteArray(
                   R"({"model": {"type": "BPE", "continuing_subword_prefix": "##", "vocab": {"a": 0}, "merges": []}})")
            << "tokenizer.json: model.continuing_subword_prefix \"##\" is not supported";
        QTest::addRow("flag that is not a flag")
            << QByteArray(R"({"model": {"type": "BPE", "fuse_unk": "yes", "vocab": {"a": 0}, "merges": []}})")
            << "tokenizer.json: model.fuse_unk must be true or false";
        QTest::addRow("unigram model") << QByteArray(R"({"model": {"type": "Unigram", "vocab": []}})")
                                       << "tokenizer.json: model type \"Unigram\" is not supported";
        QTest::addRow("model without a type")
            << QByteArray(R"({"model": {"vocab": {"a": 0}}})") << "tokenizer.json: model has no \"type\"";
        QTest::addRow("wordpiece without its unknown token")
            << QByteArray(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}}})")
            << "tokenizer.json: model: the unknown token \"[UNK]\" is not in the vocabulary";
        QTest::addRow("wordpiece limit of zero")
            << QByteArray(R"({"model": {"type": "WordPiece", "max_input_chars_per_word": 0, "vocab": {"[UNK]": 0}}})")
            << "tokenizer.json: model.max_input_chars_per_word must be a whole number from 1 to 1000000000";
        QTest::addRow("precompiled normalizer")
            << with(R"("normalizer": {"type": "Precompiled", "precompiled_charsmap": ""})")
            << "tokenizer.json: normalizer type \"Precompiled\" is not supported";
        QTest::addRow("normalizer sequence") << with(R"("normalizer": {"type": "Sequence", "normalizers": []})")
                                             << "tokenizer.json: normalizer type \"Sequence\" is not supported";
        QTest::addRow("normalizer without type")
            << with(R"("normalizer": {"lowercase": true})") << "tokenizer.json: normalizer has no \"type\"";
        QTest::addRow("normalizer flag not a flag")
            << with(R"("normalizer": {"type": "BertNormalizer", "lowercase": 1})")
            << "tokenizer.json: normalizer.lowercase must be true or false";
        QTest::addRow("metaspace pre-tokenizer")
            << with(R"("pre_tokenizer": {"type": "Metaspace", "replacement": "_"})")
            << "tokenizer.json: pre_tokenizer type \"Metaspace\" is not supported";
        QTest::addRow("pre-tokenizer not an object")
            << with(R"("pre_tokenizer": "ByteLevel")") << "tokenizer.json: pre_tokenizer must be null or an object";
        QTest::addRow("roberta post-processor")
            << with(R"("post_processor": {"type": "RobertaProcessing"})")
            << "tokenizer.json: post_processor type \"RobertaProcessing\" is not supported";
        QTest::addRow("template without its special token")
            << with(
                   R"("post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {}})")
            << "tokenizer.json: post_processor.special_tokens has no \"[CLS]\"";
        QTest::addRow("template id outside the vocabulary")
            << with(
                   R"("post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [7], "tokens": ["[CLS]"]}}})")
            << "tokenizer.json: post_processor.special_tokens \"[CLS]\" id 7 is not an id of the vocabulary";
        QTest::addRow("template without the sequence")
            << with(R"("post_processor": {"type": "TemplateProcessing", "single": [], "special_tokens": {}})")
            << "tokenizer.json: post_processor.single must hold the sequence \"A\" exactly once";
        QTest::addRow("bert processing id outside the vocabulary")
            << with(R"("post_processor": {"type": "BertProcessing", "cls": ["[CLS]", 3], "sep": ["[SEP]", 1]})")
            << "tokenizer.json: post_processor.cls id is not an id of the vocabulary";
        QTest::addRow("added token without content")
            << with(R"("added_tokens": [{"id": 3, "content": ""}])")
            << "tokenizer.json: added_tokens[0].content must be a non-empty string";
        QTest::addRow("added token without id")
            << with(R"("added_tokens": [{"content": "<x>"}])")
            << "tokenizer.json: added_tokens[0].id must be a whole number from 0 to 16777215";
        QTest::addRow("added tokens sharing an id")
            << with(R"("added_tokens": [{"id": 3, "content": "<x>"}, {"id": 3, "content": "<y>"}])")
            << "tokenizer.json: added_tokens gives id 3 to both \"<x>\" and \"<y>\"";
        // Strings of the file are escaped in the message, which stays one printable line.
        QTest::addRow("control character in a type")
            << with(R"("pre_tokenizer": {"type": "Byte\rLevel"})")
            << "tokenizer.json: pre_tokenizer type \"Byte\\rLevel\" is not supported";
        QTest::addRow("control characters in added tokens")
            << with(R"("added_tokens": [{"id": 3, "content": "<\u0001>"}, {"id": 3, "content": "<\u007f\t>"}])")
            << "tokenizer.json: added_tokens gives id 3 to both \"<\\u0001>\" and \"<\\u007f\\t>\"";
    }
    void malformedTokenizerJsonIsRefused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        const QString dir = tempPath("malformed/" + QString(QTest::currentDataTag()).replace(' ', '-'));
        writeFile(dir, "tokenizer.json", json);
        const QString got = loadError(dir);
        QVERIFY2(got.startsWith(error), qPrintable(got));
        for (QChar c : got)
            QVERIFY2(c.unicode() >= 0x20 && c.unicode() != 0x7f, qPrintable(got));
    }

    void malformedLegacyFilesAreRefused_data()
    {
        QTest::addColumn<QString>("files");  // name=content;name=content
        QTest::addColumn<QString>("error");
        QTest::addRow("merges line of one symbol")
            << "vocab.json={\"a\": 0, \"b\": 1, \"ab\": 2};merges.txt=#version: 0.2\na b\nab\n"
            << "merges.txt: line 3 is not two symbols separated by one space";
        QTest::addRow("merges blank line") << "vocab.json={\"a\": 0, \"b\": 1, \"ab\": 2};merges.txt=a b\n\n"
                                           << "merges.txt: line 2 is not two symbols separated by one space";
        QTest::addRow("merge of unknown symbol")
            << "vocab.json={\"a\": 0};merges.txt=a b\n"
            << "merges.txt: merge 1 (\"a b\") needs \"b\", which is not in the vocabulary";
        QTest::addRow("vocab.json not JSON") << "vocab.json={\"a\": ;merges.txt="
                                             << "vocab.json: not valid JSON";
        QTest::addRow("vocab.json an array") << "vocab.json=[\"a\"];merges.txt="
                                             << "vocab.json: the top level is not a JSON object";
        QTest::addRow("vocab.json string id") << "vocab.json={\"a\": \"0\"};merges.txt="
                                              << "vocab.json: the id of \"a\" is not a whole number";
        QTest::addRow("merges without vocab") << "merges.txt=a b\n"
                                              << "vocab.json: not found (merges.txt needs it)";
        QTest::addRow("vocab without merges") << "vocab.json={\"a\": 0}"
                                              << "merges.txt: not found (vocab.json needs it)";
        QTest::addRow("vocab.txt without [CLS]") << "vocab.txt=[PAD]\n[UNK]\n[SEP]\n[MASK]\n"
                                                 << "vocab.txt: the cls_token \"[CLS]\" is not in the vocabulary";
        QTest::addRow("vocab.txt without [UNK]") << "vocab.txt=[PAD]\n[CLS]\n[SEP]\n[MASK]\n"
                                                 << "vocab.txt: the unknown token \"[UNK]\" is not in the vocabulary";
        QTest::addRow("config flag not a flag")
            << "vocab.txt=[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n;tokenizer_config.json={\"do_lower_case\": \"no\"}"
            << "tokenizer_config.json: do_lower_case must be true or false";
        QTest::addRow("config not JSON") << "vocab.txt=[UNK]\n;tokenizer_config.json={"
                                         << "tokenizer_config.json: not valid JSON";
        QTest::addRow("merge with a control character")
            << "vocab.json={\"a\": 0};merges.txt=a \x01\n"
            << "merges.txt: merge 1 (\"a \\u0001\") needs \"\\u0001\", which is not in the vocabulary";
        QTest::addRow("vocab.json id shared, names with control characters")
            << "vocab.json={\"\\r\": 0, \"\\u0000\": 0};merges.txt="
            << "vocab.json: id 0 is given to both \"\\";
        QTest::addRow("unknown token with a control character")
            << "vocab.txt=[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n;tokenizer_config.json={\"unk_token\": \"[U\\u001bNK]\"}"
            << "vocab.txt: the unknown token \"[U\\u001bNK]\" is not in the vocabulary";
        QTest::addRow("nothing") << "README.md=hello"
                                 << "no tokenizer.json, vocab.json + merges.txt or vocab.txt";
    }
    void malformedLegacyFilesAreRefused()
    {
        QFETCH(QString, files);
        QFETCH(QString, error);
        const QString dir = tempPath("legacy/" + QString(QTest::currentDataTag()).replace(' ', '-'));
        for (const QString& file : files.split(';')) {
            const qsizetype eq = file.indexOf('=');
            writeFile(dir, file.left(eq), file.mid(eq + 1).toUtf8());
        }
        const QString got = loadError(dir);
        QVERIFY2(got.contains(error), qPrintable(got));
        for (QChar c : got)
            QVERIFY2(c.unicode() >= 0x20 && c.unicode() != 0x7f, qPrintable(got));
    }

    void tokenizerConfigMustAgreeWithTokenizerJson()
    {
        const QString dir = tempPath("bert-json-config");
        writeJson(dir, "tokenizer.json", bertTokenizerJson());
        writeJson(dir, "tokenizer_config.json", parseObject(R"({"do_lower_case": true, "model_max_length": 512})"));
        QCOMPARE(loadError(dir), QString());
        writeJson(dir, "tokenizer_config.json", parseObject(R"({"do_lower_case": false})"));
        QCOMPARE(loadError(dir), QString("tokenizer_config.json: do_lower_case false disagrees with tokenizer.json's "
                                         "normalizer.lowercase true"));
        writeJson(dir, "tokenizer_config.json", parseObject(R"({"strip_accents": true})"));
        QCOMPARE(loadError(dir), QString("tokenizer_config.json: strip_accents true disagrees with tokenizer.json's "
                                         "normalizer.strip_accents null"));
        const QString gpt2 = tempPath("gpt2-json-config");
        writeJson(gpt2, "tokenizer.json", gpt2TokenizerJson(false));
        writeJson(gpt2, "tokenizer_config.json", parseObject(R"({"add_prefix_space": true})"));
        QCOMPARE(loadError(gpt2),
                 QString("tokenizer_config.json: add_prefix_space true disagrees with tokenizer.json's "
                         "pre_tokenizer.add_prefix_space false"));
    }

    void oversizedFileIsNotRead()
    {
        const QString dir = tempPath("oversized");
        QDir().mkpath(dir);
        QFile file(QDir(dir).filePath("tokenizer.json"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.resize(64 * 1024 * 1024 + 1));  // sparse: no disk used
        file.close();
        QCOMPARE(loadError(dir),
                 QString("tokenizer.json: 67108865 bytes, more than the 64 MiB a tokenizer file may have"));
        QCOMPARE(loadError(tempPath("does-not-exist")), tempPath("does-not-exist") + ": not a folder");
    }
};

QTEST_GUILESS_MAIN(TestSubwordTokenizers)
#include "test_subword_tokenizers.moc"
