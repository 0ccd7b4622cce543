// What heads do through the real executable (docs/command-line.md, "What heads do"): --metric,
// --position, --logit-lens, --top-k and --attribution against the float64 reference
// (tests/fixtures/models/*/heads.json), the JSON's keys and shapes, and every refusal of the
// contract as one `error:` line with no output file.
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

QString idsOf(const QJsonObject& heads)
{
    QStringList ids;
    for (const QJsonValue& id : heads["token_ids"].toArray())
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

QJsonObject runJson(const QStringList& arguments)
{
    const ProgramRun run = runProgram(arguments + QStringList{"--json", "-"});
    if (run.exit_code != 0) {
        qWarning("exit %d: %s", run.exit_code, run.err.constData());
        return {};
    }
    return QJsonDocument::fromJson(run.out).object();
}

}  // namespace

class TestCliHeads : public QObject {
    Q_OBJECT

private slots:
    void jsonAgreesWithReference_data();
    void jsonAgreesWithReference();
    void tokensAsVocabularyStrings();
    void defaults();
    void tiesGoToTheLowerId();
    void modelNormsAgreeWithReference_data();
    void modelNormsAgreeWithReference();
    void singleLayerNorms();
    void exportsDrawNorms_data();
    void exportsDrawNorms();
    void contractErrors_data();
    void contractErrors();
};

void TestCliHeads::jsonAgreesWithReference_data()
{
    QTest::addColumn<QString>("fixture");
    for (const char* name :
         {"gpt2-tiny", "bert-tiny", "distilbert-tiny", "llama-tiny", "qwen2-tiny", "pythia-tiny", "neox-sequential"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestCliHeads::jsonAgreesWithReference()
{
    QFETCH(QString, fixture);
    const QJsonObject expected = readJsonObject(modelFixture(fixture) + "/heads.json");
    QVERIFY(!expected.isEmpty());
    const QJsonObject metric = expected["metric"].toObject();
    const bool pre_norm = expected.contains("attribution");
    QStringList arguments = {"--model",
                             modelFixture(fixture),
                             "--token-ids",
                             idsOf(expected),
                             "--metric",
                             metricOf(metric),
                             "--position",
                             QString::number(metric["position"].toInt()),
                             "--logit-lens",
                             "--top-k",
                             QString::number(expected["top_k"].toInt())};
    if (pre_norm)
        arguments << "--attribution";
    const QJsonObject json = runJson(arguments);
    QVERIFY(!json.isEmpty());

    // "metric": {"target", "foil", "position", "value"}; the value within 2e-5 of max(1, |value|).
    const QJsonObject got_metric = json["metric"].toObject();
    QCOMPARE(got_metric.keys(), (QStringList{"foil", "position", "target", "value"}));
    QCOMPARE(got_metric["target"].toInt(), metric["target"].toInt());
    QCOMPARE(got_metric["foil"].toInt(), metric["foil"].toInt());
    QCOMPARE(got_metric["position"].toInt(), metric["position"].toInt());
    const double value = metric["value"].toDouble();
    QVERIFY(std::abs(got_metric["value"].toDouble() - value) <= kContractTolerance * std::max(1.0, std::abs(value)));

    // "logit_lens": (L+1) x T lists of K {"id", "token", "p"}; p within 2e-5; ids exact (these
    // fixtures have no two tokens within the tolerance in any top K + 1: test_logit_lens).
    const QJsonObject lens = json["logit_lens"].toObject();
    const QJsonObject reference_lens = expected["logit_lens"].toObject();
    const QJsonArray top = lens["top"].toArray();
    const QJsonArray reference_top = reference_lens["top"].toArray();
    QCOMPARE(top.size(), reference_top.size());
    for (int l = 0; l < top.size(); ++l) {
        QCOMPARE(top[l].toArray().size(), reference_top[l].toArray().size());
        for (int t = 0; t < top[l].toArray().size(); ++t) {
            const QJsonArray cell = top[l].toArray()[t].toArray();
            const QJsonArray reference_cell = reference_top[l].toArray()[t].toArray();
            QCOMPARE(cell.size(), reference_cell.size());
            for (int r = 0; r < cell.size(); ++r) {
                const QJsonObject entry = cell[r].toObject();
                QCOMPARE(entry.keys(), (QStringList{"id", "p", "token"}));
                QCOMPARE(entry["id"].toInt(), reference_cell[r].toObject()["id"].toInt());
                QVERIFY(std::abs(entry["p"].toDouble() - reference_cell[r].toObject()["p"].toDouble()) <=
                        kContractTolerance);
                QVERIFY(!entry["token"].toString().isEmpty());
            }
        }
    }
    const QJsonObject target = lens["target"].toObject();
    const QJsonObject reference_target = reference_lens["target"].toObject();
    QCOMPARE(target["id"].toInt(), reference_target["id"].toInt());
    QCOMPARE(target["rank"].toArray(), reference_target["rank"].toArray());
    for (int l = 0; l < target["p"].toArray().size(); ++l)
        for (int t = 0; t < target["p"].toArray()[l].toArray().size(); ++t)
            QVERIFY(std::abs(target["p"].toArray()[l].toArray()[t].toDouble() -
                             reference_target["p"].toArray()[l].toArray()[t].toDouble()) <= kContractTolerance);

    if (!pre_norm) {
        QVERIFY(!json.contains("attribution"));
        return;
    }
    // "attribution": the keys of the contract; each part within 2e-5 of max(1, |logit|), and the
    // parts add up to the logit within 1e-4 of it.
    const QJsonObject attribution = json["attribution"].toObject();
    const QJsonObject reference = expected["attribution"].toObject();
    QCOMPARE(attribution.keys(), reference.keys());
    const double scale = std::max(1.0, std::abs(reference["logit"].toDouble()));
    double sum = 0;
    for (const char* key : {"logit", "embed", "final_bias"}) {
        QVERIFY2(std::abs(attribution[key].toDouble() - reference[key].toDouble()) <= kContractTolerance * scale, key);
        if (QLatin1String(key) != QLatin1String("logit"))
            sum += attribution[key].toDouble();
    }
    for (const char* key : {"attn_bias", "mlp"}) {
        const QJsonArray parts = attribution[key].toArray();
        QCOMPARE(parts.size(), reference[key].toArray().size());
        for (int l = 0; l < parts.size(); ++l) {
            QVERIFY(std::abs(parts[l].toDouble() - reference[key].toArray()[l].toDouble()) <=
                    kContractTolerance * scale);
            sum += parts[l].toDouble();
        }
    }
    const QJsonArray heads = attribution["heads"].toArray();
    QCOMPARE(heads.size(), reference["heads"].toArray().size());
    for (int l = 0; l < heads.size(); ++l) {
        QCOMPARE(heads[l].toArray().size(), reference["heads"].toArray()[l].toArray().size());
        for (int h = 0; h < heads[l].toArray().size(); ++h) {
            QVERIFY(std::abs(heads[l].toArray()[h].toDouble() -
                             reference["heads"].toArray()[l].toArray()[h].toDouble()) <= kContractTolerance * scale);
            sum += heads[l].toArray()[h].toDouble();
        }
    }
    QVERIFY(std::abs(sum - attribution["logit"].toDouble()) <= 1e-4 * scale);
    QCOMPARE(attribution["position"].toInt(), metric["position"].toInt());
}

void TestCliHeads::tokensAsVocabularyStrings()
{
    // gpt2-tiny's real GPT-2 vocabulary: "Ġthe" is 262, "Ġa" 257; BERT's WordPiece "##ing" 2075.
    const QStringList gpt2 = {"--model", modelFixture("gpt2-tiny"), "--sentence", "The cat sat"};
    const QJsonObject by_string = runJson(gpt2 + QStringList{"--metric", "Ġthe,Ġa"});
    const QJsonObject by_id = runJson(gpt2 + QStringList{"--metric", "262,257"});
    QCOMPARE(by_string["metric"].toObject()["target"].toInt(), 262);
    QCOMPARE(by_string["metric"].toObject()["foil"].toInt(), 257);
    QCOMPARE(by_string["metric"].toObject()["value"].toDouble(), by_id["metric"].toObject()["value"].toDouble());
    const QJsonObject bert = runJson(
        {"--model", modelFixture("bert-tiny"), "--sentence", "Hello [MASK].", "--metric", "##ing", "--position", "2"});
    QCOMPARE(bert["metric"].toObject()["target"].toInt(), 2075);
    QVERIFY(bert["metric"].toObject()["foil"].isNull());
    QCOMPARE(bert["metric"].toObject()["position"].toInt(), 2);
}

void TestCliHeads::defaults()
{
    // K = 5, the last position, no "target" without --metric; the lens's last row is the model's
    // own prediction: its top 5 are "top5"'s ids at every position.
    const QJsonObject json =
        runJson({"--model", modelFixture("gpt2-tiny"), "--sentence", "The cat sat on", "--logit-lens"});
    const QJsonObject lens = json["logit_lens"].toObject();
    QVERIFY(!lens.contains("target"));
    const QJsonArray top = lens["top"].toArray();
    QCOMPARE(top.size(), 3);
    const QJsonArray last_row = top[2].toArray();
    QCOMPARE(last_row.size(), 4);
    const QJsonArray predictions = json["top5"].toArray();
    for (int t = 0; t < 4; ++t) {
        QCOMPARE(last_row[t].toArray().size(), 5);
        for (int r = 0; r < 5; ++r)
            QCOMPARE(last_row[t].toArray()[r].toObject()["id"].toInt(),
                     predictions[t].toObject()["ids"].toArray()[r].toInt());
    }
    const QJsonObject metric =
        runJson({"--model", modelFixture("gpt2-tiny"), "--sentence", "The cat sat on", "--metric", "5"})["metric"]
            .toObject();
    QCOMPARE(metric["position"].toInt(), 3);
    QVERIFY(metric["foil"].isNull());
}

void TestCliHeads::tiesGoToTheLowerId()
{
    // A head of zeros gives every token the same p in every cell: the top K are ids 0..K-1, and
    // the tracked token's rank is its id (every lower id comes before it).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = dir.filePath("zero-head");
    QVERIFY(copyFolder(modelFixture("mistral-tiny"), folder));
    QVERIFY(editTensors(folder, [](std::vector<StTensor>& t) {
        for (StTensor& s : t)
            if (s.name == QStringLiteral("lm_head.weight"))
                s.data.fill('\0');
    }));
    const QJsonObject json =
        runJson({"--model", folder, "--token-ids", "3,1,4,1,5", "--logit-lens", "--top-k", "3", "--metric", "7"});
    const QJsonObject lens = json["logit_lens"].toObject();
    const QJsonArray top = lens["top"].toArray();
    QCOMPARE(top.size(), 3);
    for (int l = 0; l < 3; ++l)
        for (int t = 0; t < 5; ++t) {
            const QJsonArray cell = top[l].toArray()[t].toArray();
            for (int r = 0; r < 3; ++r) {
                QCOMPARE(cell[r].toObject()["id"].toInt(), r);
                QVERIFY(std::abs(cell[r].toObject()["p"].toDouble() - 1.0 / 96) <= kContractTolerance);
            }
            QCOMPARE(lens["target"].toObject()["rank"].toArray()[l].toArray()[t].toInt(), 7);
        }
}

void TestCliHeads::modelNormsAgreeWithReference_data()
{
    QTest::addColumn<QString>("fixture");
    for (const char* name : {"gpt2-tiny", "distilbert-tiny", "llama-biased", "pythia-tiny"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestCliHeads::modelNormsAgreeWithReference()
{
    QFETCH(QString, fixture);
    const QJsonObject expected = readJsonObject(modelFixture(fixture) + "/heads.json");
    const QJsonObject json =
        runJson({"--model", modelFixture(fixture), "--token-ids", idsOf(expected), "--attention-kind", "norms"});
    const QJsonArray norms = json["attention_norms"].toArray();
    const QJsonArray reference = expected["attention_norms"].toArray();
    QCOMPARE(norms.size(), reference.size());
    QCOMPARE(norms.size(), json["attention"].toArray().size());
    // The contract's 2e-5 x max(1, the largest norm).
    double largest = 1.0;
    double worst = 0.0;
    for (int l = 0; l < norms.size(); ++l)
        for (int h = 0; h < norms[l].toArray().size(); ++h)
            for (int i = 0; i < norms[l].toArray()[h].toArray().size(); ++i) {
                const QJsonArray row = norms[l].toArray()[h].toArray()[i].toArray();
                const QJsonArray want = reference[l].toArray()[h].toArray()[i].toArray();
                QCOMPARE(row.size(), want.size());
                for (int j = 0; j < row.size(); ++j) {
                    largest = std::max(largest, std::abs(want[j].toDouble()));
                    worst = std::max(worst, std::abs(row[j].toDouble() - want[j].toDouble()));
                }
            }
    QVERIFY2(worst <= kContractTolerance * largest, qPrintable(QStringLiteral("off by %1").arg(worst)));
    // weights (the default) adds nothing.
    QVERIFY(!runJson({"--model", modelFixture(fixture), "--token-ids", idsOf(expected), "--attention-kind", "weights"})
                 .contains("attention_norms"));
}

void TestCliHeads::singleLayerNorms()
{
    // A hand-written layer: 2 heads of 2 features, W_O mixing them; ||A_ij v_j^h W_O^h|| from the
    // trace's own V and A.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString weights = dir.filePath("toy.json");
    QFile file(weights);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"num_heads": 2,
        "wq": [[1,0,0,1],[0,1,1,0],[1,1,0,0],[0,0,1,1]],
        "wk": [[0,1,0,1],[1,0,1,0],[0,0,1,1],[1,1,0,0]],
        "wv": [[1,2,0,0],[0,1,0,3],[2,0,1,0],[0,0,1,1]],
        "bv": [0.5,-0.5,0.25,0],
        "wo": [[1,0,2,0],[0,1,0,0],[3,0,1,1],[0,2,0,1]]})");
    file.close();
    const QJsonObject json = runJson(
        {"--weights", weights, "--sentence", "one two three", "--causal", "--attention-kind", "norms", "--json-trace"});
    QVERIFY(!json.isEmpty());
    const QJsonArray attention = json["attention"].toArray();
    const QJsonArray norms = json["attention_norms"].toArray();
    const QJsonArray v = json["trace"].toObject()["v"].toArray();  // per head (T, D)
    const double wo[4][4] = {{1, 0, 2, 0}, {0, 1, 0, 0}, {3, 0, 1, 1}, {0, 2, 0, 1}};
    QCOMPARE(norms.size(), 2);
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double f[4] = {0, 0, 0, 0};
                for (int d = 0; d < 2; ++d)
                    for (int c = 0; c < 4; ++c)
                        f[c] += v[h].toArray()[j].toArray()[d].toDouble() * wo[h * 2 + d][c];
                const double norm = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2] + f[3] * f[3]);
                const double want = attention[h].toArray()[i].toArray()[j].toDouble() * norm;
                QVERIFY(std::abs(norms[h].toArray()[i].toArray()[j].toDouble() - want) <=
                        kContractTolerance * std::max(1.0, norm));
            }
    QCOMPARE(norms[0].toArray()[0].toArray()[2].toDouble(), 0.0);  // causal: above the diagonal
}

void TestCliHeads::exportsDrawNorms_data()
{
    QTest::addColumn<QStringList>("source");
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("title");  // what the SVG's text says is drawn
    const QJsonObject expected = readJsonObject(modelFixture("gpt2-tiny") + "/heads.json");
    const QStringList model = {"--model", modelFixture("gpt2-tiny"), "--token-ids", idsOf(expected)};
    const QStringList layer = {"--sentence", "the cat sat on the mat", "--causal", "--heads", "2"};
    for (const char* view : {"grid", "head", "compare", "lines"}) {
        QTest::addRow("model %s", view) << model << QString::fromLatin1(view) << "norms ||A f(x)||";
        QTest::addRow("layer %s", view) << layer << QString::fromLatin1(view) << "norms ||A f(x)||";
    }
    QTest::newRow("model grid") << model << "model"
                                << "norms ||A f(x)||";
    QTest::newRow("rollout") << model << "rollout"
                             << "row-normalised norms";
}

// --attention-kind norms with --export: every view that draws attention draws the norms, its
// title saying so (the numbers against the core's: tests/ui's test_value_norms).
void TestCliHeads::exportsDrawNorms()
{
    QFETCH(QStringList, source);
    QFETCH(QString, view);
    QFETCH(QString, title);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString svg = dir.filePath("view.svg");
    const ProgramRun run =
        runProgram(source + QStringList{"--attention-kind", "norms", "--export", svg, "--view", view});
    QVERIFY2(run.exit_code == 0, run.err.constData());
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll()).replace(QStringLiteral("&amp;"), QStringLiteral("&"));
    QVERIFY2(text.contains(title) || text.contains(QString(title).replace(u'|', QStringLiteral("&#124;"))),
             qPrintable(view));
    // The weights (the default) say so instead.
    const ProgramRun weights = runProgram(source + QStringList{"--export", svg, "--view", view});
    QCOMPARE(weights.exit_code, 0);
    QFile again(svg);
    QVERIFY(again.open(QIODevice::ReadOnly));
    QVERIFY(!QString::fromUtf8(again.readAll()).contains(QStringLiteral("norms")));
}

void TestCliHeads::contractErrors_data()
{
    QTest::addColumn<QString>("fixture");  // a fixture, or "no-head": mistral-tiny without lm_head.weight
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    const QStringList ids = {"--token-ids", "1,2,3"};
    QTest::newRow("unknown token string") << "gpt2-tiny" << QStringList{"--metric", "Ġcatzzz"} << "'Ġcatzzz'";
    QTest::newRow("unknown foil") << "gpt2-tiny" << QStringList{"--metric", "262,nope nope"} << "'nope nope'";
    QTest::newRow("id outside the vocabulary") << "gpt2-tiny" << QStringList{"--metric", "50257"} << "50257";
    QTest::newRow("string without a tokenizer") << "llama-tiny" << (ids + QStringList{"--metric", "cat"}) << "'cat'";
    QTest::newRow("empty metric") << "gpt2-tiny" << QStringList{"--metric", ""} << "--metric";
    QTest::newRow("empty foil") << "gpt2-tiny" << QStringList{"--metric", "262,"} << "--metric";
    QTest::newRow("attribution without metric") << "gpt2-tiny" << QStringList{"--attribution"} << "--metric";
    QTest::newRow("attribution on bert") << "bert-tiny" << QStringList{"--metric", "5", "--attribution"}
                                         << "--attribution";
    QTest::newRow("attribution on distilbert")
        << "distilbert-tiny" << QStringList{"--metric", "5", "--attribution"} << "--attribution";
    QTest::newRow("lens without head") << "no-head" << (ids + QStringList{"--logit-lens"}) << "prediction head";
    QTest::newRow("metric without head") << "no-head" << (ids + QStringList{"--metric", "5"}) << "prediction head";
    QTest::newRow("attribution without head")
        << "no-head" << (ids + QStringList{"--metric", "5", "--attribution"}) << "prediction head";
    QTest::newRow("top-k 0") << "gpt2-tiny" << QStringList{"--logit-lens", "--top-k", "0"} << "--top-k";
    QTest::newRow("top-k 101") << "gpt2-tiny" << QStringList{"--logit-lens", "--top-k", "101"} << "--top-k";
    QTest::newRow("top-k text") << "gpt2-tiny" << QStringList{"--logit-lens", "--top-k", "five"} << "--top-k";
    QTest::newRow("position past the input")
        << "gpt2-tiny" << (ids + QStringList{"--metric", "5", "--position", "3"}) << "--position 3";
    QTest::newRow("negative position") << "gpt2-tiny" << QStringList{"--metric", "5", "--position", "-1"}
                                       << "--position";
    QTest::newRow("metric without model") << "" << QStringList{"--metric", "5"} << "--metric";
    QTest::newRow("lens without model") << "" << QStringList{"--logit-lens"} << "--logit-lens";
    QTest::newRow("unknown attention kind")
        << "gpt2-tiny" << QStringList{"--attention-kind", "values"} << "--attention-kind";
    QTest::newRow("unknown attention kind, single layer")
        << "" << QStringList{"--attention-kind", "Norms"} << "--attention-kind";
}

void TestCliHeads::contractErrors()
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

REGISTER_TEST_SUITE(TestCliHeads, QCoreApplication)
#include "test_cli_heads.moc"
