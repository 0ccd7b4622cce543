// The general tokenizer.json pipeline (Llama 3, Qwen2, Llama 2 / TinyLlama, Mistral, GPT-NeoX
// shapes) against Hugging Face: the ids its JavaScript tokenizers give on the small tokenizer
// files in tests/data/tokenizers (made, with pipeline_ids.json, by make_pipeline_ids.mjs), how
// tokenizer_config.json's add_bos_token / add_eos_token rebuild the template for the classes
// transformers rebuilds it for, and the refusal of every step or option not implemented.
#include "core/model/ModelTokenizer.h"
#include "tests/core/TokenizerTestFiles.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <map>

using namespace attn;
using namespace attn::testing;

namespace {

const QString kPipelineDir = sourcePath("tests/data/tokenizers");
const QStringList kShapes = {"llama3-style", "qwen2-style", "llama2-style", "mistral-style",
                             "neox-style",   "llama3-tiny", "llama2-tiny",  "qwen2-tiny"};

QJsonObject shapeJson(const QString& shape)
{
    return QJsonDocument::fromJson(readAll(kPipelineDir + "/" + shape + "/tokenizer.json")).object();
}

}  // namespace

class TestTokenizersPipeline : public TokenizerTestBase {
    Q_OBJECT

private:
    std::map<QString, std::unique_ptr<SubwordTokenizer>> m_tokenizers;  // by shape

    QString errorFor(const QString& name, const QJsonObject& json, const QJsonObject& config = {})
    {
        writeJson(tempPath(name), "tokenizer.json", json);
        if (!config.isEmpty())
            writeJson(tempPath(name), "tokenizer_config.json", config);
        return loadError(tempPath(name));
    }

    QList<int> idsWithConfig(const QString& name, const QString& shape, const QJsonObject& config, const QString& text)
    {
        writeJson(tempPath(name), "tokenizer.json", shapeJson(shape));
        writeJson(tempPath(name), "tokenizer_config.json", config);
        auto tokenizer = loadTokenizer(tempPath(name));
        if (!tokenizer)
            qFatal("%s", qPrintable(tokenizer.error()));
        return (*tokenizer)->encode(text).ids;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_temp.isValid());
        for (const QString& shape : kShapes) {
            auto tokenizer = loadTokenizer(kPipelineDir + "/" + shape);
            QVERIFY2(tokenizer, qPrintable(shape + ": " + (tokenizer ? QString() : tokenizer.error())));
            m_tokenizers[shape] = std::move(tokenizer).value();
        }
    }

    void agreesWithHuggingFaceJs_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<int>>("ids");
        QTest::addColumn<QStringList>("tokens");
        const QJsonObject expected = QJsonDocument::fromJson(readAll(kPipelineDir + "/pipeline_ids.json"))
                                         .object()
                                         .value("tokenizers")
                                         .toObject();
        QCOMPARE(expected.keys().size(), kShapes.size());
        for (const QString& shape : kShapes) {
            const QJsonArray cases = expected.value(shape).toArray();
            QVERIFY(cases.size() >= 25);
            for (const QJsonValue& value : cases) {
                const QJsonObject c = value.toObject();
                QStringList tokens;
                for (const QJsonValue& t : c.value("tokens").toArray())
                    tokens.append(t.toString());
                QTest::addRow("%s | %s", qPrintable(shape), qPrintable(c.value("name").toString()))
                    << shape << c.value("text").toString() << intList(c.value("ids").toArray()) << tokens;
            }
        }
    }
    void agreesWithHuggingFaceJs()
    {
        QFETCH(QString, shape);
        QFETCH(QString, text);
        QFETCH(QList<int>, ids);
        QFETCH(QStringList, tokens);
        const SubwordEncoding encoding = m_tokenizers.at(shape)->encode(text);
        QCOMPARE(tokenTexts(encoding), tokens);
        QCOMPARE(encoding.ids, ids);
    }

    // Llama 2's byte tokens: a character outside the vocabulary is its UTF-8 bytes.
    void byteFallbackSpellsUtf8Bytes()
    {
        const SubwordEncoding encoding = m_tokenizers.at("llama2-style")->encode("\u00e9", false);
        QCOMPARE(tokenTexts(encoding), (QStringList{"\u2581", "<0xC3>", "<0xA9>"}));
        // Both byte tokens point at the one input character.
        QCOMPARE(ranges(encoding).last(), std::make_pair(qsizetype(0), qsizetype(1)));
    }

    // Which spellings are bytes, for showing tokens as text (TokenPiece).
    void byteLevelSpelling()
    {
        for (const QString& shape : kShapes) {
            const bool bytes = !shape.startsWith("llama2") && !shape.startsWith("mistral");
            QCOMPARE(m_tokenizers.at(shape)->byteLevel(), bytes);
        }
        auto folder = ModelTokenizer::load(kPipelineDir + "/llama3-tiny");
        QVERIFY(folder);
        QVERIFY((*folder)->byteLevel());
        auto sentencePiece = ModelTokenizer::load(kPipelineDir + "/llama2-tiny");
        QVERIFY(sentencePiece);
        QVERIFY(!(*sentencePiece)->byteLevel());
    }

    void beginOfTextOnlyWithSpecialTokens()
    {
        const SubwordTokenizer& llama3 = *m_tokenizers.at("llama3-style");
        const int bos = *llama3.tokenToId("<|begin_of_text|>");
        QCOMPARE(llama3.encode("Hello").ids.first(), bos);
        QVERIFY(llama3.isSpecial(bos));
        QVERIFY(!llama3.encode("Hello", false).ids.contains(bos));
        QVERIFY(!m_tokenizers.at("qwen2-style")->encode("Hello").special.contains(true));
    }

    // LlamaTokenizerFast writes its own template from add_bos_token / add_eos_token.
    void llamaConfigRebuildsTheTemplate()
    {
        const QJsonObject base{{"tokenizer_class", "LlamaTokenizer"}, {"bos_token", "<s>"}, {"eos_token", "</s>"}};
        const QList<int> plain = m_tokenizers.at("llama2-style")->encode("Hi", false).ids;
        QCOMPARE(idsWithConfig("llama-default", "llama2-style", base, "Hi"), QList<int>{1} + plain);
        QJsonObject noBos = base;
        noBos["add_bos_token"] = false;
        QCOMPARE(idsWithConfig("llama-no-bos", "llama2-style", noBos, "Hi"), plain);
        QJsonObject withEos = base;
        withEos["add_eos_token"] = true;
        QCOMPARE(idsWithConfig("llama-eos", "llama2-style", withEos, "Hi"), QList<int>{1} + plain + QList<int>{2});
        // bos_token as transformers writes an AddedToken.
        QJsonObject object = noBos;
        object["add_bos_token"] = true;
        object["bos_token"] = QJsonObject{{"content", "</s>"}, {"__type", "AddedToken"}};
        QCOMPARE(idsWithConfig("llama-object", "llama2-style", object, "Hi"), QList<int>{2} + plain);
    }

    void otherClassesKeepTheFilesTemplate()
    {
        const SubwordTokenizer& llama3 = *m_tokenizers.at("llama3-style");
        const QJsonObject config{{"tokenizer_class", "PreTrainedTokenizerFast"}, {"add_bos_token", false}};
        QCOMPARE(idsWithConfig("llama3-config", "llama3-style", config, "Hi"), llama3.encode("Hi").ids);
        // GPT-NeoX: BOS only when asked.
        const QJsonObject neox{{"tokenizer_class", "GPTNeoXTokenizer"}, {"bos_token", "<|endoftext|>"}};
        const QList<int> plain = m_tokenizers.at("neox-style")->encode("Hi").ids;
        QCOMPARE(idsWithConfig("neox-default", "neox-style", neox, "Hi"), plain);
        QJsonObject neoxBos = neox;
        neoxBos["add_bos_token"] = true;
        const int bos = *m_tokenizers.at("neox-style")->tokenToId("<|endoftext|>");
        QCOMPARE(idsWithConfig("neox-bos", "neox-style", neoxBos, "Hi"), QList<int>{bos} + plain);
    }

    void refusesWhatIsNotImplemented_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::addColumn<QString>("pointer");  // "key/key" into the file
        QTest::addColumn<QString>("json");     // with ' for "
        QTest::addColumn<QString>("message");
        QTest::newRow("normalizer Precompiled") << "llama2-style"
                                                << "normalizer"
                                                << "{'type':'Precompiled','precompiled_charsmap':'AAAA'}"
                                                << "tokenizer.json: normalizer type \"Precompiled\" is not supported";
        QTest::newRow("nested normalizer Strip")
            << "llama2-style"
            << "normalizer"
            << "{'type':'Sequence','normalizers':[{'type':'NFC'},{'type':'Strip'}]}"
            << "tokenizer.json: normalizer.normalizers[1] type \"Strip\" is not supported";
        QTest::newRow("pre_tokenizer Whitespace")
            << "qwen2-style"
            << "pre_tokenizer"
            << "{'type':'Whitespace'}"
            << "tokenizer.json: pre_tokenizer type \"Whitespace\" is not supported";
        QTest::newRow("split behaviour")
            << "qwen2-style"
            << "pre_tokenizer"
            << "{'type':'Split','pattern':{'String':' '},'behavior':'Sideways','invert':false}"
            << "tokenizer.json: pre_tokenizer.behavior \"Sideways\" is not supported";
        QTest::newRow("split pattern kind")
            << "qwen2-style"
            << "pre_tokenizer"
            << "{'type':'Split','pattern':{'Glob':'*'},'behavior':'Isolated','invert':false}"
            << "tokenizer.json: pre_tokenizer.pattern must be {\"String\": …} or {\"Regex\": …}";
        QTest::newRow("invalid regex")
            << "qwen2-style"
            << "pre_tokenizer"
            << "{'type':'Split','pattern':{'Regex':'(ab'},'behavior':'Isolated','invert':false}"
            << "tokenizer.json: pre_tokenizer.pattern the pattern \"(ab\" is not a valid regular expression "
               "(missing closing parenthesis)";
        QTest::newRow("metaspace scheme")
            << "mistral-style"
            << "pre_tokenizer"
            << "{'type':'Metaspace','replacement':'_','prepend_scheme':'sometimes'}"
            << "tokenizer.json: pre_tokenizer.prepend_scheme \"sometimes\" is not supported";
        QTest::newRow("post_processor unknown")
            << "qwen2-style"
            << "post_processor"
            << "{'type':'Sequence','processors':[{'type':'Jinja'}]}"
            << "tokenizer.json: post_processor.processors[0] type \"Jinja\" is not supported";
    }
    void refusesWhatIsNotImplemented()
    {
        QFETCH(QString, shape);
        QFETCH(QString, pointer);
        QFETCH(QString, json);
        QFETCH(QString, message);
        QJsonObject file = shapeJson(shape);
        file[pointer] = QJsonDocument::fromJson(json.replace(u'\'', u'"').toUtf8()).object();
        QCOMPARE(errorFor(QTest::currentDataTag(), file), message);
    }

    void refusesSubwordAffixes()
    {
        QJsonObject file = shapeJson("llama2-style");
        QJsonObject model = file["model"].toObject();
        model["continuing_subword_prefix"] = "##";
        file["model"] = model;
        QCOMPARE(errorFor("prefix", file),
                 QString("tokenizer.json: model.continuing_subword_prefix \"##\" is not supported"));
    }

    void refusesConfigWithoutItsToken()
    {
        const QJsonObject config{{"tokenizer_class", "LlamaTokenizerFast"}, {"bos_token", "<BOS>"}};
        QCOMPARE(errorFor("bos-missing", shapeJson("llama2-style"), config),
                 QString("tokenizer_config.json: bos_token \"<BOS>\" is not a token of tokenizer.json"));
        const QJsonObject noToken{
            {"tokenizer_class", "LlamaTokenizerFast"}, {"add_eos_token", true}, {"bos_token", "<s>"}};
        QCOMPARE(errorFor("eos-unset", shapeJson("llama2-style"), noToken),
                 QString("tokenizer_config.json: add_eos_token is true but eos_token is not set"));
        const QJsonObject prefix{{"tokenizer_class", "LlamaTokenizerFast"}, {"add_prefix_space", false}};
        QCOMPARE(errorFor("llama-prefix", shapeJson("llama2-style"), prefix),
                 QString("tokenizer_config.json: add_prefix_space with LlamaTokenizerFast is not supported "
                         "(transformers then rebuilds the tokenizer from tokenizer.model)"));
    }
};

REGISTER_TEST_SUITE(TestTokenizersPipeline, QCoreApplication)
#include "test_tokenizers_pipeline.moc"
