// "head_metrics" and "head_similarity" in the --json document: present, one entry per head, the
// same numbers as core/HeadMetrics, through the library and through the executable.
#include "core/analysis/HeadMetrics.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "core/report/JsonReport.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestSuite.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <numbers>

using namespace attn;

namespace {

QJsonObject parse(const QByteArray& bytes)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << error.errorString();
    return doc.object();
}

}  // namespace

class TestJsonMetrics : public QObject {
    Q_OBJECT

private slots:
    void metricsMatchTheLibrary()
    {
        RunSettings config;
        config.causal = true;
        auto result = AttentionPipeline::run(config, RunSettings::defaultSentence(), TraceDetail::Probabilities);
        QVERIFY2(result.ok(), qPrintable(result.error()));
        const QJsonObject json = parse(JsonReport::build(*result));

        const QJsonArray metrics = json["head_metrics"].toArray();
        QCOMPARE(metrics.size(), 8);
        const std::vector<HeadMetric> expected = computeHeadMetrics(result->trace.probabilities);
        for (int h = 0; h < 8; ++h) {
            const QJsonObject m = metrics[h].toObject();
            QCOMPARE(m.keys(), (QStringList{"diagonal", "entropy", "first", "max", "previous"}));
            // Doubles go through text: the shortest round-trip form reads back exactly.
            QCOMPARE(m["entropy"].toDouble(), expected[size_t(h)].entropy);
            QCOMPARE(m["max"].toDouble(), expected[size_t(h)].max);
            QCOMPARE(m["diagonal"].toDouble(), expected[size_t(h)].diagonal);
            QCOMPARE(m["previous"].toDouble(), expected[size_t(h)].previous);
            QCOMPARE(m["first"].toDouble(), expected[size_t(h)].first);
            // Causal: row 0 sees only key 0, so "first" is at least 1/T.
            QVERIFY(m["first"].toDouble() >= 1.0 / result->seqLen() - 1e-9);
        }

        const QJsonArray similarity = json["head_similarity"].toArray();
        QCOMPARE(similarity.size(), 8);
        const MatrixD s = similarityMatrix(result->trace.probabilities);
        for (int x = 0; x < 8; ++x) {
            const QJsonArray row = similarity[x].toArray();
            QCOMPARE(row.size(), 8);
            QCOMPARE(row[x].toDouble(), 0.0);
            for (int y = 0; y < 8; ++y) {
                QCOMPARE(row[y].toDouble(), s(x, y));
                QCOMPARE(row[y].toDouble(), similarity[y].toArray()[x].toDouble());
                QVERIFY(row[y].toDouble() <= std::numbers::ln2);
            }
        }
    }

    // Through the executable, as scripts use it: the numbers agree with the "attention" printed
    // beside them, for a causal model with 4 heads. Both are printed in their shortest form that
    // reads back to the same number (float32 attention, double metrics), so the test recomputes
    // the metrics from the very float32 weights the program used: the two sides differ only by
    // the order of double sums of at most T^2 = 36 terms of size at most 1 (T log T for the
    // entropy), 2 gamma_36 T in double, about 5e-14: kDoubleSums leaves room to 1e-12.
    void metricsThroughTheExecutable()
    {
        const ProgramRun run =
            runProgram({"--sentence", "a b c a b c", "--d-model", "32", "--heads", "4", "--causal", "--json", "-"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QJsonObject json = parse(run.out);
        const QJsonArray metrics = json["head_metrics"].toArray();
        QCOMPARE(metrics.size(), 4);
        const QJsonArray similarity = json["head_similarity"].toArray();
        QCOMPARE(similarity.size(), 4);
        const QJsonArray attention = json["attention"].toArray();
        std::vector<Matrix> heads;
        for (int h = 0; h < 4; ++h) {
            const QJsonArray head = attention[h].toArray();
            Matrix a(head.size(), head.size());
            for (int i = 0; i < head.size(); ++i)
                for (int j = 0; j < head.size(); ++j)
                    a(i, j) = float(head[i].toArray()[j].toDouble());
            const HeadMetric expected = computeHeadMetrics(a);
            const QJsonObject m = metrics[h].toObject();
            constexpr double kDoubleSums = 1e-12;
            QVERIFY(std::abs(m["entropy"].toDouble() - expected.entropy) <= kDoubleSums);
            QVERIFY(std::abs(m["diagonal"].toDouble() - expected.diagonal) <= kDoubleSums);
            QVERIFY(std::abs(m["max"].toDouble() - expected.max) <= kDoubleSums);
            QVERIFY(std::abs(m["previous"].toDouble() - expected.previous) <= kDoubleSums);
            QVERIFY(std::abs(m["first"].toDouble() - expected.first) <= kDoubleSums);
            // Causal: row 0 is one-hot on key 0, so the first row adds 1 to "first" and "diagonal".
            QVERIFY(m["first"].toDouble() >= 1.0 / 6.0 - 1e-9);
            heads.push_back(a);
        }
        const MatrixD expected = similarityMatrix(heads);
        for (int x = 0; x < 4; ++x)
            for (int y = 0; y < 4; ++y)
                QVERIFY(std::abs(similarity[x].toArray()[y].toDouble() - expected(x, y)) <= 1e-12);  // as above
    }
};

REGISTER_TEST_SUITE(TestJsonMetrics, QCoreApplication)
#include "test_json_metrics.moc"
