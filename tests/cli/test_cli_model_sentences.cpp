// --model --sentence on Llama and Qwen2 checkpoints through the tokenizer.json pipeline:
// llama-tiny's weights beside the small Llama 3-style (byte-level) and Llama 2-style
// (SentencePiece with byte fallback) tokenizers of tests/data/tokenizers, whose ids fit its
// 128-token embeddings, and qwen2-tiny's beside the Qwen2-style one (160 embeddings). The ids
// are those Hugging Face's JavaScript tokenizers gave (pipeline_ids.json); the attention is the
// same as with those ids given by --token-ids.
#include "tests/support/ModelFolders.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace attn::testing;

namespace {

const QString kTokenizers = sourcePath("tests/data/tokenizers");

QJsonObject expectedCase(const QString& tokenizer, const QString& name)
{
    const QJsonObject all = readJsonObject(kTokenizers + "/pipeline_ids.json")["tokenizers"].toObject();
    for (const QJsonValue& c : all[tokenizer].toArray())
        if (c["name"].toString() == name)
            return c.toObject();
    qFatal("no case %s", qPrintable(name));
}

QString joined(const QJsonArray& ids)
{
    QStringList out;
    for (const QJsonValue& id : ids)
        out << QString::number(id.toInt());
    return out.join(',');
}

}  // namespace

class TestCliModelSentences : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_temp;
    int m_folders = 0;

    // The checkpoint's folder (llama-tiny for the Llama tokenizers, qwen2-tiny for the Qwen2 one)
    // with the tokenizer's tokenizer.json (and a tokenizer_config.json).
    QString folder(const QString& tokenizer, const QJsonObject& config = {})
    {
        const QString dir = m_temp.filePath(tokenizer + QString::number(++m_folders));
        const QString checkpoint = tokenizer.startsWith("qwen2") ? "qwen2-tiny" : "llama-tiny";
        if (!copyFolder(modelFixture(checkpoint), dir) ||
            !QFile::copy(kTokenizers + "/" + tokenizer + "/tokenizer.json", dir + "/tokenizer.json"))
            qFatal("cannot assemble %s", qPrintable(dir));
        if (!config.isEmpty() && !writeJsonObject(dir + "/tokenizer_config.json", config))
            qFatal("cannot write the config");
        return dir;
    }

    QJsonObject run(const QStringList& arguments)
    {
        const QString path = m_temp.filePath("out.json");
        QFile::remove(path);
        const ProgramRun result = runProgram(arguments + QStringList{"--json", path});
        if (result.exit_code != 0)
            qWarning("%s", result.err.constData());
        return result.exit_code == 0 ? readJsonObject(path) : QJsonObject();
    }

private slots:
    void sentenceGivesHuggingFacesIds_data()
    {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<QString>("name");
        for (const char* tokenizer : {"llama3-tiny", "llama2-tiny", "qwen2-tiny"})
            for (const char* name : {"default sentence", "accents precomposed", "contractions upper case"})
                QTest::addRow("%s | %s", tokenizer, name) << QString(tokenizer) << QString(name);
    }
    void sentenceGivesHuggingFacesIds()
    {
        QFETCH(QString, tokenizer);
        QFETCH(QString, name);
        const QJsonObject expected = expectedCase(tokenizer, name);
        const QString dir = folder(tokenizer);
        const QJsonObject bySentence = run({"--model", dir, "--sentence", expected["text"].toString()});
        QCOMPARE(bySentence["token_ids"].toArray(), expected["ids"].toArray());
        QCOMPARE(bySentence["tokens"].toArray(), expected["tokens"].toArray());
        const QJsonObject byIds = run({"--model", dir, "--token-ids", joined(expected["ids"].toArray())});
        QCOMPARE(byIds["attention"], bySentence["attention"]);
    }

    // transformers' LlamaTokenizerFast rebuilds the template: add_bos_token false drops <s>.
    void llamaConfigWithoutBos()
    {
        const QJsonObject config{
            {"tokenizer_class", "LlamaTokenizerFast"}, {"add_bos_token", false}, {"bos_token", "<s>"}};
        const QJsonArray ids =
            run({"--model", folder("llama2-tiny", config), "--sentence", "Hello world"})["token_ids"].toArray();
        QJsonArray expected = expectedCase("llama2-tiny", "hello world")["ids"].toArray();
        QCOMPARE(expected.first().toInt(), 1);
        expected.removeFirst();
        QCOMPARE(ids, expected);
    }

    void sentencePieceModelFileAloneIsNamed()
    {
        const QString dir = m_temp.filePath("sentencepiece-only");
        QVERIFY(copyFolder(modelFixture("llama-tiny"), dir));
        QFile model(dir + "/tokenizer.model");
        QVERIFY(model.open(QIODevice::WriteOnly) && model.write("\x0a\x05hello") > 0);
        model.close();
        const QString out = m_temp.filePath("never.json");
        const ProgramRun result = runProgram({"--model", dir, "--sentence", "Hello", "--json", out});
        QVERIFY(result.exit_code != 0);
        QVERIFY2(result.err.startsWith("error: ") && result.err.count('\n') == 1, result.err.constData());
        QVERIFY2(result.err.contains("tokenizer.model, SentencePiece's own format, is not read"),
                 result.err.constData());
        QVERIFY(!QFile::exists(out));
    }
};

REGISTER_TEST_SUITE(TestCliModelSentences, QCoreApplication)
#include "test_cli_model_sentences.moc"
