// --json with --model holds "rollout" and "head_scores" (docs/command-line.md, "Across layers"):
// the numbers of the numpy reference (tests/fixtures/analysis/make_analysis_reference.py, run on
// the fixtures' PyTorch attention), through the real executable, and each bad value of
// --rollout-fusion / --residual-weight as one `error:` line.
#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace attn::testing;

namespace {

// How far the program's rollout may lie from the reference's, derived from the contract: every
// attention weight within kContractTolerance (eps) of float64. Per layer, the fused map F (mean,
// max or min over heads: each moves by at most eps) mixed with the identity,
// G = (1 - w) F + w I, moves by (1 - w) eps per entry, and its rows normalised, A = G / s, by at
// most 2 T (1 - w) eps / s in a row's sum of |changes| (T keys; s the row's sum, at least the
// program's s less T (1 - w) eps). A product of row-stochastic maps (each of norm 1 in the norm of
// row sums) moves by at most prod (1 + d_l) - 1 over its layers' changes d_l, and no entry by more.
// The rollout is printed as shortest double text, which reads back exactly.
double rolloutBound(const QJsonArray& attention, const QString& fusion, double residual_weight, int last_layer)
{
    const double eps = kContractTolerance;
    double product = 1.0;
    for (int l = 0; l <= last_layer; ++l) {
        const QJsonArray heads = attention[l].toArray();
        const int tokens = int(heads[0].toArray().size());
        double smallest_sum = std::numeric_limits<double>::infinity();
        for (int i = 0; i < tokens; ++i) {
            double sum = 0.0;
            for (int j = 0; j < tokens; ++j) {
                double fused = fusion == QLatin1String("mean") ? 0.0 : heads[0][i][j].toDouble();
                for (const QJsonValue& head : heads) {
                    const double a = head[i][j].toDouble();
                    if (fusion == QLatin1String("mean"))
                        fused += a / double(heads.size());
                    else
                        fused = fusion == QLatin1String("max") ? std::max(fused, a) : std::min(fused, a);
                }
                sum += (1 - residual_weight) * fused + (i == j ? residual_weight : 0.0);
            }
            smallest_sum = std::min(smallest_sum, sum);
        }
        const double moved = tokens * (1 - residual_weight) * eps;
        if (smallest_sum <= moved)  // a row that may sum to 0: nothing to claim
            return std::numeric_limits<double>::infinity();
        product *= 1.0 + 2 * moved / (smallest_sum - moved);
    }
    return product - 1.0;
}

}  // namespace

class TestCliRollout : public QObject {
    Q_OBJECT

private slots:
    // The program's attention agrees with float64 within the contract's 2e-5 per weight (the model
    // tests); the rollout is held to the bound that carries through its layers (rolloutBound).
    void jsonMatchesTheReference_data()
    {
        QTest::addColumn<QString>("model");
        for (const char* model : {"gpt2-tiny", "bert-tiny", "llama-tiny"})
            QTest::newRow(model) << QString::fromLatin1(model);
    }

    void jsonMatchesTheReference()
    {
        QFETCH(QString, model);
        const QJsonObject reference = readJsonObject(fixturesPath("analysis/analysis_reference.json"));
        QJsonObject expected;
        for (const QJsonValue& value : reference["cases"].toArray())
            if (value["model"].toString() == model)
                expected = value.toObject();
        QVERIFY(!expected.isEmpty());
        // The reference's scores are for its repeating id pattern, with the maps of the fixture's
        // own ids: give the fixture's ids for the maps and compare the rollout; the head scores
        // are checked on the pattern's ids below against the program's own maps.
        QStringList fixture_ids;
        for (const QJsonValue& id : readJsonObject(modelFixture(model) + "/expected.json")["token_ids"].toArray())
            fixture_ids << QString::number(id.toInt());
        int checked = 0;
        for (const QJsonValue& entry : expected["rollout"].toArray()) {
            if (entry["last_layer"].toInt() != -1)
                continue;  // the JSON holds the rollout after the last layer
            QTemporaryDir out;
            const ProgramRun run = runProgram(
                {"--model", modelFixture(model), "--token-ids", fixture_ids.join(','), "--json", out.filePath("m.json"),
                 "--rollout-fusion", entry["fusion"].toString(), "--residual-weight",
                 QString::number(entry["residual_weight"].toDouble())});
            QVERIFY2(run.exit_code == 0, run.err.constData());
            const QJsonObject json = readJsonObject(out.filePath("m.json"));
            const QJsonArray rollout = json["rollout"].toArray();
            const QJsonArray want = entry["matrix"].toArray();
            QCOMPARE(rollout.size(), want.size());
            double worst = 0.0;
            for (int i = 0; i < want.size(); ++i) {
                double sum = 0.0;
                for (int j = 0; j < want.size(); ++j) {
                    sum += rollout[i][j].toDouble();
                    worst = std::max(worst, std::abs(rollout[i][j].toDouble() - want[i][j].toDouble()));
                }
                QVERIFY(std::abs(sum - 1.0) < 1e-9);
            }
            const int last = entry["last_layer"].toInt() < 0 ? int(json["attention"].toArray().size()) - 1
                                                             : entry["last_layer"].toInt();
            const double bound = rolloutBound(json["attention"].toArray(), entry["fusion"].toString(),
                                              entry["residual_weight"].toDouble(), last);
            QVERIFY2(worst <= bound, qPrintable(QStringLiteral("%1, bound %2").arg(worst).arg(bound)));
            qInfo("%s, residual %g: worst %.3g, bound %.3g", qPrintable(entry["fusion"].toString()),
                  entry["residual_weight"].toDouble(), worst, bound);
            ++checked;
        }
        QCOMPARE(checked, 4);
    }

    // head_scores is (L, H) of five numbers; on "A B C A B C" ids a map is scored against the
    // patterns those ids make (previous, duplicate, induction), as the reference defines them.
    void headScoresFollowTheIds()
    {
        const ProgramRun run = runProgram({"--model", modelFixture("gpt2-tiny"), "--token-ids", "5,6,7,5,6,7,5,6,7",
                                           "--json", "-"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        const QJsonArray attention = json["attention"].toArray();
        const QJsonArray scores = json["head_scores"].toArray();
        QCOMPARE(scores.size(), attention.size());
        const std::vector<int> ids = {5, 6, 7, 5, 6, 7, 5, 6, 7};
        for (int l = 0; l < attention.size(); ++l) {
            QCOMPARE(scores[l].toArray().size(), attention[l].toArray().size());
            for (int h = 0; h < attention[l].toArray().size(); ++h) {
                const QJsonArray map = attention[l][h].toArray();
                double previous = 0, duplicate = 0, induction = 0, total = 0, first = 0;
                for (int i = 0; i < 9; ++i)
                    for (int j = 0; j < 9; ++j) {
                        const double a = map[i][j].toDouble();
                        total += a;
                        previous += j == i - 1 ? a : 0.0;
                        duplicate += j < i && ids[size_t(j)] == ids[size_t(i)] ? a : 0.0;
                        induction += j >= 1 && j <= i && ids[size_t(j - 1)] == ids[size_t(i)] ? a : 0.0;
                        first += j == 0 ? a / 9 : 0.0;
                    }
                const QJsonObject score = scores[l][h].toObject();
                QCOMPARE(score.keys(), (QStringList{"duplicate", "entropy", "first", "induction", "previous"}));
                // The scores are read from the run's compact maps, the JSON's "attention" from its
                // float32 weights; the two may differ in the last bits (measured: 9e-10 in a
                // score). Each weight of either is within the contract's 2e-5 of float64, so within
                // 4e-5 of the other's; a ratio of sums over n = 81 weights (numerator and total
                // both moved) within 2 n 4e-5 / total, "first" (a sum of 9 over 9) within 4e-5.
                const double moved = 2 * kContractTolerance;
                const double ratio_bound = 2 * 81 * moved / total;
                QVERIFY(std::abs(score["previous"].toDouble() - previous / total) <= ratio_bound);
                QVERIFY(std::abs(score["duplicate"].toDouble() - duplicate / total) <= ratio_bound);
                QVERIFY(std::abs(score["induction"].toDouble() - induction / total) <= ratio_bound);
                QVERIFY(std::abs(score["first"].toDouble() - first) <= moved);
                QVERIFY(score["entropy"].toDouble() >= 0.0 && score["entropy"].toDouble() <= std::log(9.0) + 1e-9);
            }
        }
    }

    // --induction-probe N: N ids from [1000, 10000) (GPT-2's vocabulary is larger), given twice;
    // the same ids on every run; on the second copy the induction pattern points at the token
    // after each earlier occurrence, which head_scores measures.
    void inductionProbeRepeatsRandomIds()
    {
        const ProgramRun run = runProgram({"--model", modelFixture("gpt2-tiny"), "--induction-probe", "12", "--json", "-"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        const QJsonArray ids = json["token_ids"].toArray();
        QCOMPARE(ids.size(), 24);
        QSet<int> distinct;
        for (int i = 0; i < 12; ++i) {
            QCOMPARE(ids[i + 12].toInt(), ids[i].toInt());
            QVERIFY(ids[i].toInt() >= 1000 && ids[i].toInt() < 10000);
            distinct.insert(ids[i].toInt());
        }
        QVERIFY(distinct.size() >= 10);  // random, not one id repeated
        const ProgramRun again = runProgram({"--model", modelFixture("gpt2-tiny"), "--induction-probe", "12", "--json", "-"});
        QCOMPARE(QJsonDocument::fromJson(again.out).object()["token_ids"].toArray(), ids);
        // Every head has an induction score; on the repeated half the pattern has one key per row.
        const QJsonArray scores = json["head_scores"].toArray();
        QCOMPARE(scores.size(), 2);
        for (const QJsonValue& layer : scores)
            for (const QJsonValue& head : layer.toArray())
                QVERIFY(head["induction"].toDouble() > 0.0 && head["induction"].toDouble() < 1.0);
    }

    // --view model --mark-heads: the frames change the picture; the caption says which score.
    void markedHeadsChangeTheModelPicture()
    {
        QTemporaryDir out;
        const QStringList model = {"--model", modelFixture("gpt2-tiny"), "--sentence", "the cat sat on the mat",
                                   "--view", "model", "--size", "900x500", "--export"};
        QCOMPARE(runProgram(model + QStringList{out.filePath("plain.png")}).exit_code, 0);
        QCOMPARE(runProgram(model + QStringList{out.filePath("first.png"), "--mark-heads", "first"}).exit_code, 0);
        const QImage plain(out.filePath("plain.png"));
        const QImage first(out.filePath("first.png"));
        QVERIFY(!plain.isNull() && plain.size() == first.size());
        QVERIFY(plain != first);
    }

    // Every --export of a model honours the picture options: --view model with --sort-heads,
    // --aggregate-heads (an extra column, row and corner), --hide-tokens and --color-scale log; --view
    // rollout with --hide-tokens and --color-scale; --view qk marks hidden keys. Each changes the
    // picture; bad positions are errors.
    void pictureOptionsChangeTheModelAndRolloutPictures()
    {
        QTemporaryDir out;
        for (const char* view : {"model", "rollout", "qk"}) {
            const QStringList model = {"--model", modelFixture("gpt2-tiny"), "--sentence", "the cat sat on the mat",
                                       "--view", QLatin1String(view), "--size", "900x500", "--export"};
            const QString plain_path = out.filePath(QStringLiteral("%1-plain.png").arg(QLatin1String(view)));
            QCOMPARE(runProgram(model + QStringList{plain_path}).exit_code, 0);
            const QImage plain(plain_path);
            QVERIFY(!plain.isNull());
            // The scatter has no colour scale; its hidden keys are drawn grey and dashed.
            QList<QStringList> variants = {{"--hide-tokens", "0"}};
            if (QLatin1String(view) != "qk")
                variants += QList<QStringList>{{"--color-scale", "log"}, {"--color-scale", "percentile"}};
            if (QLatin1String(view) == "model")
                variants += QList<QStringList>{{"--sort-heads", "first"}, {"--sort-heads", "entropy"},
                                               {"--aggregate-heads", "mean"},
                                               {"--aggregate-heads", "max", "--sort-heads", "induction"}};
            for (const QStringList& variant : variants) {
                const QString path = out.filePath(QStringLiteral("%1-%2.png").arg(QLatin1String(view), variant.join('-')));
                const ProgramRun run = runProgram(model + QStringList{path} + variant);
                QVERIFY2(run.exit_code == 0, qPrintable(QString::fromUtf8(run.err)));
                const QImage image(path);
                QVERIFY2(image.size() == plain.size() && image != plain, qPrintable(variant.join(' ')));
            }
            const ProgramRun outside = runProgram(model + QStringList{out.filePath("never.png"), "--hide-tokens", "6"});
            QVERIFY(outside.exit_code > 0);
            QVERIFY2(QString::fromUtf8(outside.err).contains("--hide-tokens: token 6 is outside the input"),
                     outside.err.constData());
            QVERIFY(!QFileInfo::exists(out.filePath("never.png")));
        }
    }

    void badValuesAreOneErrorLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QStringList model = {"--model", modelFixture("gpt2-tiny"), "--token-ids", "1,2,3", "--json", "-"};
        QTest::newRow("weight above 1") << (model + QStringList{"--residual-weight", "1.5"})
                                        << "--residual-weight: expected a number from 0 to 1, got '1.5'";
        QTest::newRow("weight below 0") << (model + QStringList{"--residual-weight", "-0.1"})
                                        << "--residual-weight: expected a number from 0 to 1";
        QTest::newRow("weight not a number") << (model + QStringList{"--residual-weight", "half"})
                                             << "--residual-weight: expected a number from 0 to 1";
        QTest::newRow("unknown fusion") << (model + QStringList{"--rollout-fusion", "median"})
                                        << "--rollout-fusion: expected mean, max or min, got 'median'";
        QTest::newRow("without a model") << QStringList{"--json", "-", "--rollout-fusion", "max"}
                                         << "--rollout-fusion: only with --model";
        QTest::newRow("probe of 0 tokens") << QStringList{"--model", modelFixture("gpt2-tiny"), "--json", "-",
                                                          "--induction-probe", "0"}
                                           << "--induction-probe: expected a positive number of tokens, got '0'";
        QTest::newRow("probe and a sentence")
            << QStringList{"--model", modelFixture("gpt2-tiny"), "--json", "-", "--induction-probe", "5", "--sentence", "a"}
            << "--induction-probe: cannot be combined with --sentence";
        QTest::newRow("probe longer than the positions")
            << QStringList{"--model", modelFixture("gpt2-tiny"), "--json", "-", "--induction-probe", "40"}
            << "--induction-probe: ";
        QTest::newRow("unknown mark") << QStringList{"--model", modelFixture("gpt2-tiny"), "--view", "model", "--export",
                                                     "/tmp/attention-lab-never-written.png", "--mark-heads", "entropy"}
                                      << "--mark-heads: expected previous, duplicate, induction or first, got 'entropy'";
        QTest::newRow("mark without the model view")
            << QStringList{"--model", modelFixture("gpt2-tiny"), "--json", "-", "--mark-heads", "induction"}
            << "--mark-heads: only with --view model and --export";
        QTest::newRow("unknown sort") << QStringList{"--model", modelFixture("gpt2-tiny"), "--view", "model", "--export",
                                                     "/tmp/attention-lab-never-written.png", "--sort-heads", "max"}
                                      << "--sort-heads: expected previous, duplicate, induction, entropy or first, got 'max'";
        QTest::newRow("sort without the model view")
            << QStringList{"--model", modelFixture("gpt2-tiny"), "--view", "grid", "--export",
                           "/tmp/attention-lab-never-written.png", "--sort-heads", "induction"}
            << "--sort-heads: only with --view model and --export";
        QTest::newRow("probe in the window") << QStringList{"--model", modelFixture("gpt2-tiny"), "--induction-probe", "5"}
                                             << "--induction-probe: only with --json or --export";
    }

    void badValuesAreOneErrorLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const QString problem = refusalProblem(runProgram(arguments), message);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
};

REGISTER_TEST_SUITE(TestCliRollout, QCoreApplication)
#include "test_cli_rollout.moc"
