// Generation through the real executable (docs/command-line.md, "Generation"): --generate N
// greedy against the float64 reference (tests/fixtures/models/*/generation.json) on every causal
// family, the JSON of the final sequence and "generated", sampling reproducible by its seed, the
// options that describe the final sequence with it (--logit-lens, --metric, --position, --export),
// and every refusal of the contract as one `error:` line with no output file.
#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attn::testing;

namespace {

const char* const kCausalFolders[] = {"gpt2-tiny",    "gpt2-prefixed", "llama-tiny",  "qwen2-tiny",
                                      "mistral-tiny", "llama-biased",  "pythia-tiny", "neox-sequential"};

QString joined(const QJsonArray& ids)
{
    QStringList text;
    for (const QJsonValue& id : ids)
        text << QString::number(id.toInt());
    return text.join(',');
}

QJsonObject runJson(const QStringList& arguments)
{
    const ProgramRun run = runProgram(arguments + QStringList{"--json", "-"});
    if (run.exit_code != 0) {
        qWarning("exit %d: %s", run.exit_code, run.err.constData());
        return {};
    }
    return QJsonDocument::fromJson(run.out).object();
}

QJsonObject generationOf(const QString& name)
{
    return readJsonObject(modelFixture(name) + QStringLiteral("/generation.json"));
}

}  // namespace

class TestCliGenerate : public QObject {
    Q_OBJECT

private slots:
    void greedyAgreesWithReference_data();
    void greedyAgreesWithReference();
    void sentenceAsPrompt();
    void samplingIsReproducible();
    void optionsDescribeTheFinalSequence();
    void contractErrors_data();
    void contractErrors();
};

void TestCliGenerate::greedyAgreesWithReference_data()
{
    QTest::addColumn<QString>("name");
    for (const char* name : kCausalFolders)
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestCliGenerate::greedyAgreesWithReference()
{
    QFETCH(QString, name);
    const QJsonObject expected = generationOf(name);
    QVERIFY(!expected.isEmpty());
    const QJsonObject json =
        runJson({"--model", modelFixture(name), "--token-ids", joined(expected["prompt_ids"].toArray()), "--generate",
                 QString::number(expected["max_new_tokens"].toInt())});
    QVERIFY(!json.isEmpty());
    // Prompts with a top-2 margin of at least 0.01 at every step (generation.json): the same ids.
    QCOMPARE(json["token_ids"].toArray(), expected["token_ids"].toArray());
    QCOMPARE(json["generated"].toInt(), int(expected["generated_ids"].toArray().size()));
    const int length = int(expected["token_ids"].toArray().size());
    QCOMPARE(int(json["tokens"].toArray().size()), length);
    QCOMPARE(int(json["last_hidden_state"].toArray().size()), length);

    // The attention of the whole final sequence, made step by step: within the contract's 2e-5
    // of one float64 pass over the final ids, exactly 0 above the diagonal.
    const QJsonArray got = json["attention"].toArray();
    const QJsonArray want = expected["attention"].toArray();
    QCOMPARE(got.size(), want.size());
    double worst = 0.0;
    for (qsizetype l = 0; l < got.size(); ++l)
        for (qsizetype h = 0; h < got[l].toArray().size(); ++h) {
            const QJsonArray rows = got[l].toArray()[h].toArray();
            const QJsonArray reference = want[l].toArray()[h].toArray();
            QCOMPARE(int(rows.size()), length);
            for (int i = 0; i < length; ++i)
                for (int j = 0; j < length; ++j) {
                    const double value = rows[i].toArray()[j].toDouble();
                    if (j > i)
                        QCOMPARE(value, 0.0);
                    worst = std::max(worst, std::abs(value - reference[i].toArray()[j].toDouble()));
                }
        }
    QVERIFY2(worst <= kContractTolerance, qPrintable(QStringLiteral("attention differs by %1").arg(worst)));
}

void TestCliGenerate::sentenceAsPrompt()
{
    // gpt2-tiny's prompt is its whole sentence (12 tokens, expected.json's).
    const QJsonObject expected = generationOf("gpt2-tiny");
    const QJsonObject sentence = readJsonObject(modelFixture("gpt2-tiny") + QStringLiteral("/expected.json"));
    QCOMPARE(sentence["token_ids"].toArray(), expected["prompt_ids"].toArray());
    const QJsonObject json = runJson(
        {"--model", modelFixture("gpt2-tiny"), "--sentence", sentence["sentence"].toString(), "--generate", "8"});
    QCOMPARE(json["token_ids"].toArray(), expected["token_ids"].toArray());
    QCOMPARE(json["generated"].toInt(), 8);
    // Every token spelled as convert_ids_to_tokens spells it, the prompt's as before.
    const QJsonArray tokens = json["tokens"].toArray();
    QCOMPARE(int(tokens.size()), 20);
    for (int i = 0; i < 12; ++i)
        QCOMPARE(tokens[i].toString(), sentence["tokens"].toArray()[i].toString());
}

void TestCliGenerate::samplingIsReproducible()
{
    const QStringList base = {"--model", modelFixture("gpt2-tiny"), "--token-ids", "8086,1463,2125", "--generate", "6"};
    const QJsonObject first = runJson(base + QStringList{"--temperature", "0.9", "--sample-seed", "7"});
    QCOMPARE(first["generated"].toInt(), 6);
    QCOMPARE(runJson(base + QStringList{"--temperature", "0.9", "--sample-seed", "7"})["token_ids"].toArray(),
             first["token_ids"].toArray());
    // Near-uniform over 50,257 tokens: another seed gives other ids.
    QVERIFY(runJson(base + QStringList{"--temperature", "0.9", "--sample-seed", "8"})["token_ids"].toArray() !=
            first["token_ids"].toArray());
    const QStringList warped = base + QStringList{"--temperature",  "1.3", "--sample-seed",  "3",
                                                  "--sample-top-k", "50",  "--sample-top-p", "0.8"};
    QCOMPARE(runJson(warped)["token_ids"].toArray(), runJson(warped)["token_ids"].toArray());
    // top-k 1 is greedy whatever the temperature and seed.
    const QJsonObject expected = generationOf("llama-biased");
    const QStringList llama = {"--model",     modelFixture("llama-biased"),
                               "--token-ids", joined(expected["prompt_ids"].toArray()),
                               "--generate",  "8"};
    QCOMPARE(
        runJson(llama + QStringList{"--temperature", "2", "--sample-seed", "11", "--sample-top-k", "1"})["token_ids"]
            .toArray(),
        expected["token_ids"].toArray());
}

void TestCliGenerate::optionsDescribeTheFinalSequence()
{
    const QJsonObject expected = generationOf("mistral-tiny");  // stops at config.json's eos after 4
    const QStringList base = {"--model",     modelFixture("mistral-tiny"),
                              "--token-ids", joined(expected["prompt_ids"].toArray()),
                              "--generate",  "20"};
    const QJsonObject json = runJson(base + QStringList{"--logit-lens", "--metric", "5,6"});
    const int length = int(expected["token_ids"].toArray().size());
    QCOMPARE(json["generated"].toInt(), 4);
    QCOMPARE(json["token_ids"].toArray(), expected["token_ids"].toArray());
    // The lens and the metric read the final sequence; --position defaults to its last token.
    const QJsonArray top = json["logit_lens"].toObject()["top"].toArray();
    QCOMPARE(int(top.size()), 3);                    // L + 1
    QCOMPARE(int(top[0].toArray().size()), length);  // T of the final sequence
    QCOMPARE(json["metric"].toObject()["position"].toInt(), length - 1);
    // A position among the generated tokens is inside the input.
    QCOMPARE(runJson(base + QStringList{"--metric", "5", "--position", QString::number(length - 2)})["metric"]
                 .toObject()["position"]
                 .toInt(),
             length - 2);

    // Without --generate there is no "generated".
    QVERIFY(!runJson({"--model", modelFixture("mistral-tiny"), "--token-ids", "1,2,3"}).contains("generated"));

    // A picture of the final sequence.
    QTemporaryDir dir;
    const QString png = dir.filePath("model.png");
    const ProgramRun run = runProgram(base + QStringList{"--export", png, "--view", "model", "--size", "400x300"});
    QVERIFY2(run.exit_code == 0, run.err.constData());
    QVERIFY(QFile::exists(png));
}

void TestCliGenerate::contractErrors_data()
{
    QTest::addColumn<QString>("fixture");  // a fixture, "no-head", "bad-generation-config", or none
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    const QStringList ids = {"--token-ids", "1,2,3"};
    const QStringList two = {"--generate", "2"};
    QTest::newRow("bert") << "bert-tiny" << two << "--generate 2";
    QTest::newRow("distilbert") << "distilbert-tiny" << two << "causal";
    QTest::newRow("no prediction head") << "no-head" << (ids + two) << "prediction head";
    QTest::newRow("past n_positions") << "gpt2-tiny" << QStringList{"--generate", "53"} << "64 positions";
    QTest::newRow("past max_position_embeddings")
        << "pythia-tiny" << (ids + QStringList{"--generate", "62"}) << "max_position_embeddings";
    QTest::newRow("zero tokens") << "gpt2-tiny" << QStringList{"--generate", "0"} << "--generate";
    QTest::newRow("4097 tokens") << "llama-tiny" << (ids + QStringList{"--generate", "4097"}) << "--generate";
    QTest::newRow("rotary past max_position_embeddings")
        << "llama-tiny" << (ids + QStringList{"--generate", "126"}) << "128 positions";
    QTest::newRow("not a number") << "gpt2-tiny" << QStringList{"--generate", "ten"} << "--generate";
    for (const char* bad : {"0", "-1", "nan", "inf", "warm"})
        QTest::newRow(qPrintable(QStringLiteral("temperature %1").arg(bad)))
            << "gpt2-tiny" << (two + QStringList{"--temperature", bad, "--sample-seed", "1"}) << "--temperature";
    for (const char* bad : {"0", "-3", "2.5", "many"})
        QTest::newRow(qPrintable(QStringLiteral("top-k %1").arg(bad)))
            << "gpt2-tiny" << (two + QStringList{"--sample-seed", "1", "--sample-top-k", bad}) << "--sample-top-k";
    for (const char* bad : {"0", "-0.5", "1.5", "nan", "most"})
        QTest::newRow(qPrintable(QStringLiteral("top-p %1").arg(bad)))
            << "gpt2-tiny" << (two + QStringList{"--sample-seed", "1", "--sample-top-p", bad}) << "--sample-top-p";
    for (const char* bad : {"-1", "1.5", "seed"})
        QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(bad)))
            << "gpt2-tiny" << (two + QStringList{"--sample-seed", bad}) << "--sample-seed";
    QTest::newRow("temperature without generate")
        << "gpt2-tiny" << QStringList{"--temperature", "0.7", "--sample-seed", "1"} << "--temperature";
    QTest::newRow("top-p without generate") << "gpt2-tiny" << QStringList{"--sample-top-p", "0.5"} << "--sample-top-p";
    QTest::newRow("generate without model") << "" << two << "--generate";
    QTest::newRow("broken generation_config.json")
        << "bad-generation-config" << (ids + two) << "generation_config.json";
    QTest::newRow("position past the final sequence")
        << "gpt2-tiny" << QStringList{"--generate", "2", "--metric", "5", "--position", "16"}
        << "--position 16: outside the input (positions 0 to 15)";  // the default sentence: 14 tokens
    QTest::newRow("with an ablation") << "gpt2-tiny" << (ids + two + QStringList{"--ablate", "0:0"})
                                      << "--ablate: not with --generate";
}

void TestCliGenerate::contractErrors()
{
    QFETCH(QString, fixture);
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QStringList all = arguments;
    if (fixture == u"no-head") {
        const QString folder = folderWithoutPredictionHead(dir.path());
        QVERIFY(!folder.isEmpty());
        all = QStringList{"--model", folder} + all;
    } else if (fixture == u"bad-generation-config") {
        const QString folder = dir.filePath("bad-generation-config");
        QVERIFY(copyFolder(modelFixture("llama-tiny"), folder));
        QFile file(folder + QStringLiteral("/generation_config.json"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"eos_token_id\": [2, \"x\"]}");
        file.close();
        all = QStringList{"--model", folder} + all;
    } else if (!fixture.isEmpty()) {
        all = QStringList{"--model", modelFixture(fixture)} + all;
    }
    for (const QString& output : {dir.filePath("out.json"), dir.filePath("out.png")}) {
        const QString option = output.endsWith(u".json") ? QStringLiteral("--json") : QStringLiteral("--export");
        const ProgramRun run = runProgram(all + QStringList{option, output});
        const QString problem = refusalProblem(run, expected);
        QVERIFY2(problem.isEmpty(), qPrintable(option + u' ' + problem));
        QVERIFY(!QFile::exists(output));
    }
}

REGISTER_TEST_SUITE(TestCliGenerate, QCoreApplication)
#include "test_cli_generate.moc"
