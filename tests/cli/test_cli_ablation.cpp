// Head ablation through the real executable (docs/command-line.md, "Ablation"): --ablate,
// --ablation zero|mean and --ablation-scan against the float64 reference
// (tests/fixtures/models/*/ablation.json), the JSON's "ablated" and "ablation_scan", the
// attribution of an ablated run, and every refusal of the contract as one `error:` line with no
// output file.
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

QString idsOf(const QJsonObject& ablation)
{
    QStringList ids;
    for (const QJsonValue& id : ablation["token_ids"].toArray())
        ids << QString::number(id.toInt());
    return ids.join(',');
}

QString metricOf(const QJsonObject& metric)
{
    QString text = QString::number(metric["target"].toInt());
    if (!metric["foil"].isNull())
        text += u',' + QString::number(metric["foil"].toInt());
    return text;
}

QString ablateOf(const QJsonArray& heads)
{
    QStringList pairs;
    for (const QJsonValue& pair : heads)
        pairs << QStringLiteral("%1:%2").arg(pair.toArray()[0].toInt()).arg(pair.toArray()[1].toInt());
    return pairs.join(',');
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

double maxAttentionDiff(const QJsonArray& a, const QJsonArray& b)
{
    double worst = 0;
    for (int l = 0; l < a.size(); ++l)
        for (int h = 0; h < a[l].toArray().size(); ++h)
            for (int i = 0; i < a[l][h].toArray().size(); ++i)
                for (int j = 0; j < a[l][h][i].toArray().size(); ++j)
                    worst = std::max(worst, std::abs(a[l][h][i][j].toDouble() - b[l][h][i][j].toDouble()));
    return worst;
}

}  // namespace

class TestCliAblation : public QObject {
    Q_OBJECT

private slots:
    void ablatedRunsAgreeWithReference_data();
    void ablatedRunsAgreeWithReference();
    void scanAgreesWithReference_data();
    void scanAgreesWithReference();
    void scanEntryIsTheAblatedRun();
    void ablateWithoutPredictionHead();
    void contractErrors_data();
    void contractErrors();
};

void TestCliAblation::ablatedRunsAgreeWithReference_data()
{
    QTest::addColumn<QString>("fixture");
    for (const char* name : {"gpt2-tiny", "bert-tiny", "distilbert-tiny", "llama-tiny", "qwen2-tiny", "mistral-tiny",
                             "pythia-tiny", "neox-sequential"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestCliAblation::ablatedRunsAgreeWithReference()
{
    QFETCH(QString, fixture);
    const QJsonObject reference = readJsonObject(modelFixture(fixture) + "/ablation.json");
    const QJsonObject metric = reference["metric"].toObject();
    const bool pre_norm = fixture != u"bert-tiny" && fixture != u"distilbert-tiny";
    for (const QJsonValue& entry : reference["runs"].toArray()) {
        const QJsonObject run = entry.toObject();
        QStringList arguments = {"--model",     modelFixture(fixture),
                                 "--token-ids", idsOf(reference),
                                 "--ablate",    ablateOf(run["ablated"].toArray()),
                                 "--ablation",  run["mode"].toString(),
                                 "--metric",    metricOf(metric),
                                 "--position",  QString::number(metric["position"].toInt())};
        if (pre_norm)
            arguments << "--attribution";
        const QJsonObject json = runJson(arguments);
        QVERIFY(!json.isEmpty());
        QCOMPARE(json["ablated"].toArray(), run["ablated"].toArray());
        // The contract's 2e-5: the ablated run's attention absolutely, its metric (order 1) too.
        const double attention = maxAttentionDiff(json["attention"].toArray(), run["attention"].toArray());
        const double value = std::abs(json["metric"]["value"].toDouble() - run["metric"].toDouble());
        QVERIFY2(attention <= kContractTolerance && value <= kContractTolerance,
                 qPrintable(QStringLiteral("%1 %2: attention %3, metric %4")
                                .arg(ablateOf(run["ablated"].toArray()), run["mode"].toString())
                                .arg(attention)
                                .arg(value)));
        if (!pre_norm)
            continue;
        // An ablated head's part is its replaced z times W_O^h: 0 for zero ablation.
        const QJsonObject parts = json["attribution"].toObject();
        const QJsonObject expected = run["attribution"].toObject();
        double worst = 0;
        for (int l = 0; l < parts["heads"].toArray().size(); ++l)
            for (int h = 0; h < parts["heads"][l].toArray().size(); ++h)
                worst = std::max(worst, std::abs(parts["heads"][l][h].toDouble() - expected["heads"][l][h].toDouble()));
        QVERIFY2(worst / std::max(1.0, std::abs(expected["logit"].toDouble())) <= kContractTolerance,
                 qPrintable(QStringLiteral("a head's part off by %1").arg(worst)));
        if (run["mode"].toString() == u"zero")
            for (const QJsonValue& pair : run["ablated"].toArray())
                QCOMPARE(parts["heads"][pair[0].toInt()][pair[1].toInt()].toDouble(), 0.0);
    }
}

void TestCliAblation::scanAgreesWithReference_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("mode");
    for (const char* name :
         {"gpt2-prefixed", "bert-tiny", "distilbert-tiny", "llama-biased", "mistral-tiny", "pythia-tiny"})
        for (const char* mode : {"zero", "mean"})
            QTest::addRow("%s %s", name, mode) << QString::fromLatin1(name) << QString::fromLatin1(mode);
}

void TestCliAblation::scanAgreesWithReference()
{
    QFETCH(QString, fixture);
    QFETCH(QString, mode);
    const QJsonObject reference = readJsonObject(modelFixture(fixture) + "/ablation.json");
    const QJsonObject metric = reference["metric"].toObject();
    QStringList arguments = {"--model",        modelFixture(fixture), "--token-ids",
                             idsOf(reference), "--ablation-scan",     "--metric",
                             metricOf(metric), "--position",          QString::number(metric["position"].toInt())};
    if (mode == u"mean")
        arguments << "--ablation" << mode;
    const QJsonObject json = runJson(arguments);
    QVERIFY(!json.isEmpty());
    QVERIFY(!json.contains("ablated"));
    const QJsonArray scan = json["ablation_scan"].toArray();
    const QJsonArray expected = reference["scan"][mode].toArray();
    QCOMPARE(scan.size(), expected.size());
    double worst = 0;
    for (int l = 0; l < scan.size(); ++l) {
        QCOMPARE(scan[l].toArray().size(), json["model"]["num_heads"].toInt());
        for (int h = 0; h < scan[l].toArray().size(); ++h)
            worst = std::max(worst, std::abs(scan[l][h].toDouble() - expected[l][h].toDouble()));
    }
    // Each entry a difference of two metrics of order 1: the contract's 2e-5.
    QVERIFY2(worst <= kContractTolerance, qPrintable(QStringLiteral("scan off by %1").arg(worst)));
}

void TestCliAblation::scanEntryIsTheAblatedRun()
{
    // "each equals the run with --ablate L:H alone": with --ablate too, the scan is still against
    // the plain run, and its entry for an ablated head is that run's metric minus the plain one.
    const QJsonObject reference = readJsonObject(modelFixture("qwen2-tiny") + "/ablation.json");
    const QJsonObject metric = reference["metric"].toObject();
    const QStringList common = {"--model",  modelFixture("qwen2-tiny"), "--token-ids", idsOf(reference),
                                "--metric", metricOf(metric),           "--ablation",  "mean"};
    const QJsonObject scanned = runJson(common + QStringList{"--ablation-scan", "--ablate", "1:4"});
    const QJsonObject plain = runJson(common);
    QVERIFY(!scanned.isEmpty() && !plain.isEmpty());
    QCOMPARE(scanned["ablated"].toArray(), QJsonArray({QJsonArray({1, 4})}));
    const double effect = scanned["metric"]["value"].toDouble() - plain["metric"]["value"].toDouble();
    // The same float32 passes but for the layers before 1, taken from the plain run.
    QVERIFY(std::abs(scanned["ablation_scan"][1][4].toDouble() - effect) <= 1e-5);
}

void TestCliAblation::ablateWithoutPredictionHead()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = folderWithoutPredictionHead(dir.path());
    QVERIFY(!folder.isEmpty());
    const QJsonObject reference = readJsonObject(modelFixture("mistral-tiny") + "/ablation.json");
    const QJsonObject run = reference["runs"][0].toObject();
    const QJsonObject json =
        runJson({"--model", folder, "--token-ids", idsOf(reference), "--ablate", ablateOf(run["ablated"].toArray())});
    QVERIFY(!json.isEmpty());
    QVERIFY(maxAttentionDiff(json["attention"].toArray(), run["attention"].toArray()) <= kContractTolerance);
}

void TestCliAblation::contractErrors_data()
{
    QTest::addColumn<QString>("fixture");  // a fixture, or "no-head": mistral-tiny without lm_head.weight
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    const QStringList ids = {"--token-ids", "1,2,3"};
    QTest::newRow("layer out of range") << "gpt2-tiny" << QStringList{"--ablate", "2:0"} << "--ablate 2:0";
    QTest::newRow("head out of range") << "gpt2-tiny" << QStringList{"--ablate", "0:4"} << "--ablate 0:4";
    QTest::newRow("second pair out of range")
        << "llama-tiny" << (ids + QStringList{"--ablate", "0:1,1:9"}) << "--ablate 1:9";
    QTest::newRow("no colon") << "gpt2-tiny" << QStringList{"--ablate", "3"} << "--ablate";
    QTest::newRow("negative head") << "gpt2-tiny" << QStringList{"--ablate", "0:-1"} << "--ablate";
    QTest::newRow("empty pair") << "gpt2-tiny" << QStringList{"--ablate", "0:1,"} << "--ablate";
    QTest::newRow("empty value") << "gpt2-tiny" << QStringList{"--ablate", ""} << "--ablate";
    QTest::newRow("text") << "gpt2-tiny" << QStringList{"--ablate", "a:b"} << "--ablate";
    QTest::newRow("huge layer") << "gpt2-tiny" << QStringList{"--ablate", "99999999999:0"} << "--ablate";
    QTest::newRow("unknown mode") << "gpt2-tiny" << QStringList{"--ablate", "0:0", "--ablation", "half"}
                                  << "--ablation";
    QTest::newRow("scan without metric") << "gpt2-tiny" << QStringList{"--ablation-scan"} << "--ablation-scan";
    QTest::newRow("scan without head") << "no-head" << (ids + QStringList{"--ablation-scan", "--metric", "5"})
                                       << "prediction head";
    QTest::newRow("ablate without model") << "" << QStringList{"--ablate", "0:0"} << "--ablate";
    QTest::newRow("scan without model") << "" << QStringList{"--ablation-scan"} << "--ablation-scan";
}

void TestCliAblation::contractErrors()
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

REGISTER_TEST_SUITE(TestCliAblation, QCoreApplication)
#include "test_cli_ablation.moc"
