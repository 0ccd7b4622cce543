// Tokenizer folders that cannot be used: malformed tokenizer.json and legacy files, a
// tokenizer_config.json that disagrees with tokenizer.json, and files too large to read, each
// refused with one message naming the file.
#include "tests/core/TokenizerTestFiles.h"
#include "tests/support/TestSuite.h"

using namespace attn;
using namespace attn::testing;

class TestTokenizersRefusals : public TokenizerTestBase {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_temp.isValid()); }

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
        QTest::addRow("byte fallback not a flag")
            << QByteArray(R"({"model": {"type": "BPE", "byte_fallback": 1, "vocab": {"a": 0}, "merges": []}})")
            << "tokenizer.json: model.byte_fallback must be true or false";
        QTest::addRow("suffix on BPE")
            << QByteArray(
                   R"({"model": {"type": "BPE", "end_of_word_suffix": "</w>", "vocab": {"a": 0}, "merges": []}})")
            << "tokenizer.json: model.end_of_word_suffix \"</w>\" is not supported";
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
        QTest::addRow("normalizer sequence without steps") << with(R"("normalizer": {"type": "Sequence"})")
                                                           << "tokenizer.json: normalizer.normalizers must be an array";
        QTest::addRow("normalizer without type")
            << with(R"("normalizer": {"lowercase": true})") << "tokenizer.json: normalizer has no \"type\"";
        QTest::addRow("normalizer flag not a flag")
            << with(R"("normalizer": {"type": "BertNormalizer", "lowercase": 1})")
            << "tokenizer.json: normalizer.lowercase must be true or false";
        QTest::addRow("metaspace replacement of two characters")
            << with(R"("pre_tokenizer": {"type": "Metaspace", "replacement": "__"})")
            << "tokenizer.json: pre_tokenizer.replacement must be one character";
        QTest::addRow("whitespace pre-tokenizer")
            << with(R"("pre_tokenizer": {"type": "Whitespace"})")
            << "tokenizer.json: pre_tokenizer type \"Whitespace\" is not supported";
        QTest::addRow("pre-tokenizer not an object")
            << with(R"("pre_tokenizer": "ByteLevel")") << "tokenizer.json: pre_tokenizer must be null or an object";
        QTest::addRow("roberta post-processor without its tokens")
            << with(R"("post_processor": {"type": "RobertaProcessing"})")
            << "tokenizer.json: post_processor.cls must be [token, id]";
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

REGISTER_TEST_SUITE(TestTokenizersRefusals, QCoreApplication)
#include "test_tokenizers_refusals.moc"
