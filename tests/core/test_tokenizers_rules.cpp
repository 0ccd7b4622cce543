// The subword tokenizers' rules on small vocabularies: transformers' own toy vocabulary tests, BERT's
// case and accent options, WordPiece's code-point counting, BPE's merge rules (unknown tokens,
// ranks, leftmost merges, ignore_merges) and byte-level offsets trimmed.
#include "tests/core/TokenizerTestFiles.h"
#include "tests/support/TestSuite.h"
#include "tests/support/ToyGpt2Tokenizer.h"

using namespace attn;
using namespace attn::testing;

class TestTokenizersRules : public TokenizerTestBase {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_temp.isValid()); }

    // transformers' own GPT-2 tokenizer test: its toy vocabulary and merges, with add_prefix_space.
    void transformersGpt2ToyVocabulary()
    {
        const QString dir = tempPath("gpt2-toy");
        writeJson(dir, "vocab.json", toyGpt2Vocab());
        writeFile(dir, "merges.txt", toyGpt2MergesTxt());
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
        auto untrimmed = loadTokenizer(kVocabDir + "/gpt2");
        QVERIFY2(untrimmed, qPrintable(untrimmed.error()));
        QCOMPARE(trimmed->encode("Hello  world").ids, (*untrimmed)->encode("Hello  world").ids);
    }
};

REGISTER_TEST_SUITE(TestTokenizersRules, QCoreApplication)
#include "test_tokenizers_rules.moc"
