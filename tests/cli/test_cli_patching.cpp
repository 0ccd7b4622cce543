// Activation patching with --model through the real executable: --patch-from, --patch-from-ids and
// --patch-site against tests/fixtures/models/*/patching.json (float64), every family, and every
// refusal of the contract as one `error:` line with no output file.
#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attn::testing;

namespace {

const char* const kAllFolders[] = {"gpt2-tiny",  "gpt2-prefixed", "bert-tiny",    "distilbert-tiny", "llama-tiny",
                                   "qwen2-tiny", "mistral-tiny",  "llama-biased", "pythia-tiny",     "neox-sequential"};

QString idsOf(const QJsonArray& ids)
{
    QStringList parts;
    for (const QJsonValue& id : ids)
        parts << QString::number(id.toInt());
    return parts.join(u',');
}

QString metricOf(const QJsonObject& metric)
{
    QString text = QString::number(metric["target"].toInt());
    if (!metric["foil"].isNull())
        text += u',' + QString::number(metric["foil"].toInt());
    return text;
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

// The fixture's corrupted input, metric and clean input as the command line takes them.
QStringList patchingOf(const QString& fixture)
{
    const QJsonObject expected = readJsonObject(modelFixture(fixture) + "/patching.json");
    const QJsonObject metric = expected["metric"].toObject();
    return {"--model",          modelFixture(fixture),
            "--token-ids",      idsOf(expected["token_ids"].toArray()),
            "--metric",         metricOf(metric),
            "--position",       QString::number(metric["position"].toInt()),
            "--patch-from-ids", idsOf(expected["clean_token_ids"].toArray())};
}

}  // namespace

class TestCliPatching : public QObject {
    Q_OBJECT

private slots:
    void jsonAgreesWithReference_data();
    void jsonAgreesWithReference();
    void cleanInputAsText();
    void contractErrors_data();
    void contractErrors();
};

void TestCliPatching::jsonAgreesWithReference_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("site");
    for (const char* name : kAllFolders)
        for (const char* site : {"resid", "attn", "mlp", "heads"})
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(name), QLatin1String(site))))
                << QString::fromLatin1(name) << QString::fromLatin1(site);
}

void TestCliPatching::jsonAgreesWithReference()
{
    QFETCH(QString, fixture);
    QFETCH(QString, site);
    const QJsonObject expected = readJsonObject(modelFixture(fixture) + "/patching.json");
    QStringList arguments = patchingOf(fixture);
    if (site != u"resid")  // resid: the default
        arguments << "--patch-site" << site;
    const QJsonObject json = runJson(arguments);
    QVERIFY(!json.isEmpty());
    const QJsonObject patching = json["patching"].toObject();
    QCOMPARE(patching["site"].toString(), site);
    const QJsonArray values = patching["values"].toArray();
    const QJsonArray reference = expected["values"].toObject()[site].toArray();
    QCOMPARE(values.size(), reference.size());
    double worst = 0;
    for (qsizetype l = 0; l < reference.size(); ++l) {
        const QJsonArray row = values[l].toArray();
        QCOMPARE(row.size(), reference[l].toArray().size());
        for (qsizetype i = 0; i < row.size(); ++i)
            worst = std::max(worst, std::abs(row[i].toDouble() - reference[l].toArray()[i].toDouble()));
    }
    // Ratios of metrics of order 1 whose difference the fixtures keep at 0.11 or more
    // (test_activation_patching says how the contract's 2e-5 follows).
    QVERIFY2(worst <= kContractTolerance, qPrintable(QStringLiteral("off by %1").arg(worst)));
    // The JSON's metric is the corrupted (main) input's.
    QVERIFY(std::abs(json["metric"].toObject()["value"].toDouble() -
                     expected["metric"].toObject()["value"].toDouble()) <= kContractTolerance);
}

// --patch-from TEXT through the folder's tokenizer: one word changed, the same number of tokens.
void TestCliPatching::cleanInputAsText()
{
    const QStringList common = {
        "--model", modelFixture("gpt2-tiny"), "--sentence", "the cat sat on the mat", "--metric", "262"};
    const QJsonObject json = runJson(common + QStringList{"--patch-from", "the dog sat on the mat"});
    QVERIFY(!json.isEmpty());
    const QJsonObject patching = json["patching"].toObject();
    QCOMPARE(patching["site"].toString(), QStringLiteral("resid"));
    const QJsonArray values = patching["values"].toArray();
    QCOMPARE(values.size(), 2);  // L
    const QJsonArray first = values[0].toArray();
    QCOMPARE(first.size(), 6);  // T
    // Layer 0's block input differs only at the changed word; before it a causal model sees the same.
    QCOMPARE(first[0].toDouble(), 0.0);
    QVERIFY(first[1].toDouble() != 0.0);
    for (int i = 2; i < 6; ++i)
        QCOMPARE(first[i].toDouble(), 0.0);
    // The ids of the same text give the same JSON.
    const QJsonObject by_ids = runJson(common + QStringList{"--patch-from-ids", "1169,3290,3332,319,262,2603"});
    QCOMPARE(by_ids["patching"], json["patching"]);
}

void TestCliPatching::contractErrors_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    const QStringList main = {"--token-ids", "1,2,3,4", "--metric", "5,6"};
    QTest::newRow("clean input shorter") << "gpt2-tiny" << (main + QStringList{"--patch-from-ids", "1,2,3"})
                                         << "the clean input has 3 tokens, the main (corrupted) input 4";
    QTest::newRow("clean input longer") << "bert-tiny" << (main + QStringList{"--patch-from-ids", "1,2,3,4,5"})
                                        << "the clean input has 5 tokens, the main (corrupted) input 4";
    QTest::newRow("clean text of another length")
        << "gpt2-tiny" << QStringList{"--sentence", "the cat sat", "--metric", "262", "--patch-from", "the big dog sat"}
        << "--patch-from: the clean input has 4 tokens, the main (corrupted) input 3";
    QTest::newRow("no metric") << "gpt2-tiny" << QStringList{"--token-ids", "1,2", "--patch-from-ids", "3,4"}
                               << "needs --metric";
    QTest::newRow("equal metrics") << "gpt2-tiny" << (main + QStringList{"--patch-from-ids", "1,2,3,4"})
                                   << "for both inputs";
    QTest::newRow("equal metrics, change after the position")
        << "llama-tiny" << (main + QStringList{"--position", "1", "--patch-from-ids", "1,2,3,9"}) << "for both inputs";
    QTest::newRow("unknown site") << "gpt2-tiny"
                                  << (main + QStringList{"--patch-from-ids", "1,2,3,7", "--patch-site", "z"})
                                  << "--patch-site: expected resid, attn, mlp or heads, got 'z'";
    QTest::newRow("site without a clean input")
        << "gpt2-tiny" << (main + QStringList{"--patch-site", "mlp"}) << "--patch-site";
    QTest::newRow("no prediction head") << "no-head" << (main + QStringList{"--patch-from-ids", "1,2,3,7"})
                                        << "--patch-from-ids: the model folder has no prediction head";
    QTest::newRow("without model") << "" << QStringList{"--patch-from", "the dog"} << "--patch-from: only with --model";
    QTest::newRow("two clean inputs") << "gpt2-tiny"
                                      << (main + QStringList{"--patch-from", "a b c d", "--patch-from-ids", "1,2,3,7"})
                                      << "--patch-from-ids: cannot be combined with --patch-from";
    QTest::newRow("empty clean text") << "gpt2-tiny" << (main + QStringList{"--patch-from", " "}) << "--patch-from";
    QTest::newRow("bad clean ids") << "gpt2-tiny" << (main + QStringList{"--patch-from-ids", "1,x"})
                                   << "--patch-from-ids";
    QTest::newRow("clean id outside the vocabulary")
        << "gpt2-tiny" << (main + QStringList{"--patch-from-ids", "1,2,3,50257"}) << "--patch-from-ids";
    QTest::newRow("clean text without a tokenizer")
        << "llama-tiny" << (main + QStringList{"--patch-from", "a b c d"}) << "--patch-from";
    QTest::newRow("with an ablation") << "gpt2-tiny"
                                      << (main + QStringList{"--patch-from-ids", "1,2,3,7", "--ablate", "0:0"})
                                      << "--patch-from-ids: not with --ablate";
    QTest::newRow("with generation") << "gpt2-tiny"
                                     << (main + QStringList{"--patch-from-ids", "1,2,3,7", "--generate", "2"})
                                     << "--patch-from-ids: not with --generate";
}

void TestCliPatching::contractErrors()
{
    QFETCH(QString, fixture);
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QStringList all = arguments;
    const QStringList model = modelArguments(fixture, dir.path());
    QVERIFY(fixture.isEmpty() || !model.isEmpty());
    all = model + all;
    const QString json = dir.filePath("out.json");
    const ProgramRun run = runProgram(all + QStringList{"--json", json});
    const QString problem = refusalProblem(run, expected);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(!QFile::exists(json));
}

REGISTER_TEST_SUITE(TestCliPatching, QCoreApplication)
#include "test_cli_patching.moc"
