// What the heatmaps draw besides the computed weights (core/analysis/AttentionDisplay): hidden
// keys with rows renormalised, heads fused, exBERT's top mass, percentiles, per-row scaling.
#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/ProbabilityPercentile.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "tests/support/LongInput.h"
#include "tests/support/TestSuite.h"

#include <QTest>

#include <cmath>
#include <cstdint>
#include <numeric>

using namespace attn;

namespace {

Matrix matrix(int rows, int cols, std::initializer_list<float> values)
{
    Matrix m(rows, cols);
    std::copy(values.begin(), values.end(), m.data());
    return m;
}

}  // namespace

class TestAttentionDisplay : public QObject {
    Q_OBJECT

private slots:
    void hiddenKeyRowsSumToOneOverTheVisibleKeys()
    {
        // A causal head: row 0 sees only key 0, which is hidden.
        const Matrix weights = matrix(3, 3,
                                      {1.0f, 0.0f, 0.0f,  //
                                       0.6f, 0.4f, 0.0f,  //
                                       0.5f, 0.2f, 0.3f});
        std::vector<int> empty;
        const Matrix shown = AttentionDisplay::hideKeys(weights, {true, false, false}, &empty);
        QCOMPARE(shown.col(0).cwiseAbs().maxCoeff(), 0.0f);  // hidden: exactly 0
        QCOMPARE(shown.row(0).cwiseAbs().maxCoeff(), 0.0f);  // nothing left to see: zeros, reported
        QCOMPARE(empty, std::vector<int>{0});
        // The remaining weights keep their proportions and sum to 1 (float: within 1e-6).
        QVERIFY(std::abs(shown.row(1).sum() - 1.0f) < 1e-6f);
        QVERIFY(std::abs(shown.row(2).sum() - 1.0f) < 1e-6f);
        QVERIFY(std::abs(shown(1, 1) - 1.0f) < 1e-6f);
        QVERIFY(std::abs(shown(2, 1) - 0.4f) < 1e-6f);
        QVERIFY(std::abs(shown(2, 2) - 0.6f) < 1e-6f);
        // Nothing hidden: the weights as they were.
        QCOMPARE(AttentionDisplay::hideKeys(weights, {false, false, false}), weights);
    }

    void hiddenKeyPositionsAreChecked()
    {
        auto ok = AttentionDisplay::hiddenKeys({0, 2}, 4);
        QVERIFY(ok.ok());
        QCOMPARE(*ok, (std::vector<bool>{true, false, true, false}));
        auto outside = AttentionDisplay::hiddenKeys({4}, 4);
        QVERIFY(!outside.ok());
        QVERIFY2(outside.error().contains("outside the input"), qPrintable(outside.error()));
        auto negative = AttentionDisplay::hiddenKeys({-1}, 4);
        QVERIFY(!negative.ok());
        auto every = AttentionDisplay::hiddenKeys({0, 1, 2, 1}, 3);
        QVERIFY(!every.ok());
        QVERIFY2(every.error().contains("every token"), qPrintable(every.error()));
    }

    void aResultWithHiddenKeysKeepsEverythingElse()
    {
        RunSettings config;
        config.d_model = 16;
        config.num_heads = 2;
        config.causal = true;
        auto result = AttentionPipeline::run(config, QStringLiteral("the cat sat down"), TraceDetail::Probabilities);
        QVERIFY(result.ok());
        std::vector<int> empty;
        const AttentionResult shown = AttentionDisplay::withHiddenKeys(*result, {true, false, false, false}, &empty);
        QCOMPARE(empty, std::vector<int>{0});  // row 0 saw only the first token, in both heads: listed once
        QCOMPARE(shown.trace.output, result->trace.output);
        for (const Matrix& weights : shown.trace.probabilities) {
            QCOMPARE(weights.col(0).cwiseAbs().maxCoeff(), 0.0f);
            for (int row = 1; row < 4; ++row)
                QVERIFY(std::abs(weights.row(row).sum() - 1.0f) < 1e-6f);
        }
    }

    void headsFuseByMeanAndMax()
    {
        const std::vector<Matrix> heads = {matrix(1, 2, {0.2f, 0.8f}), matrix(1, 2, {0.6f, 0.4f})};
        const Matrix mean = AttentionDisplay::fuseHeads(heads, AttentionDisplay::Fusion::Mean);
        QVERIFY(std::abs(mean(0, 0) - 0.4f) < 1e-7f && std::abs(mean(0, 1) - 0.6f) < 1e-7f);
        const Matrix max = AttentionDisplay::fuseHeads(heads, AttentionDisplay::Fusion::Max);
        QCOMPARE(max, matrix(1, 2, {0.6f, 0.8f}));
    }

    void topMassKeepsTheStrongestKeysUpToTheFraction()
    {
        const Matrix weights = matrix(2, 4,
                                      {0.1f, 0.5f, 0.3f, 0.1f,  //
                                       0.25f, 0.25f, 0.25f, 0.25f});
        const MaskMatrix half = AttentionDisplay::topMass(weights, 0.5);
        // Row 0: 0.5 alone reaches half the mass.
        QCOMPARE(half.row(0).count(), 1);
        QVERIFY(half(0, 1));
        // Row 1: a tie, broken by the lower key; two keys make 0.5.
        QVERIFY(half(1, 0) && half(1, 1) && !half(1, 2) && !half(1, 3));
        const MaskMatrix most = AttentionDisplay::topMass(weights, 0.85);  // 0.5 + 0.3 < 0.85: a third key crosses it
        QCOMPARE(most.row(0).count(), 3);
        QVERIFY(most(0, 1) && most(0, 2) && most(0, 0));  // of the two 0.1 the lower key
        const MaskMatrix all = AttentionDisplay::topMass(weights, 1.0);
        QCOMPARE(all.count(), 8);
        // A masked (zero) cell is never kept, and a row of zeros keeps nothing.
        const MaskMatrix causal = AttentionDisplay::topMass(matrix(2, 2, {1.0f, 0.0f, 0.0f, 0.0f}), 1.0);
        QVERIFY(causal(0, 0) && !causal(0, 1) && !causal(1, 0) && !causal(1, 1));
    }

    // Long rows go through the selection by partitions (rows over 16 keys): the kept keys are
    // exactly those of a stable sort, strongest first, with many ties and zeros among them.
    void topMassOfLongRowsAsASortKeepsThem()
    {
        Matrix weights(3, 5000);  // (3, 5000)
        std::uint32_t state = 12345;
        for (qsizetype i = 0; i < weights.size(); ++i) {
            state = state * 1664525u + 1013904223u;
            const int level = int(state >> 28);                           // 0 .. 15: ties everywhere
            weights.data()[i] = level < 3 ? 0.0f : float(level * level);  // some zeros (masked)
        }
        for (int row = 0; row < 3; ++row)
            weights.row(row) /= weights.row(row).sum();
        for (double fraction : {0.01, 0.3, 0.5, 0.9, 0.999, 1.0}) {
            const MaskMatrix kept = AttentionDisplay::topMass(weights, fraction);
            for (int row = 0; row < 3; ++row) {
                std::vector<int> order(5000);
                std::iota(order.begin(), order.end(), 0);
                const auto line = weights.row(row);
                std::stable_sort(order.begin(), order.end(), [&line](int a, int b) { return line(a) > line(b); });
                const double total = line.cast<double>().sum();
                MaskMatrix expected = MaskMatrix::Constant(1, 5000, false);
                double mass = 0.0;
                for (int key : order) {
                    if (!(line(key) > 0.0f))
                        break;
                    expected(0, key) = true;
                    mass += line(key);
                    if (mass >= fraction * total * (1.0 - 1e-6))
                        break;
                }
                QVERIFY2(kept.row(row) == expected.row(0),
                         qPrintable(QStringLiteral("fraction %1 row %2: %3 kept, %4 expected")
                                        .arg(fraction)
                                        .arg(row)
                                        .arg(kept.row(row).count())
                                        .arg(expected.count())));
            }
        }
    }

    void percentileAsNumpyComputesIt()
    {
        // numpy.percentile([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 99) = 8.91
        Matrix values(2, 5);
        for (int i = 0; i < 10; ++i)
            values.data()[i] = float(i);
        QVERIFY(std::abs(AttentionDisplay::percentile({values}, {}, 99.0) - 8.91) < 1e-9);
        QCOMPARE(AttentionDisplay::percentile({values}, {}, 100.0), 9.0);
        QCOMPARE(AttentionDisplay::percentile({values}, {}, 0.0), 0.0);
        // Masked cells are left out: without 9 the largest is 8.
        MaskMatrix mask = MaskMatrix::Constant(2, 5, false);
        mask(1, 4) = true;
        QCOMPARE(AttentionDisplay::percentile({values}, mask, 100.0), 8.0);
        QCOMPARE(AttentionDisplay::percentile({}, {}, 99.0), 0.0);
    }

    void perRowScalingDividesByTheRowMaximum()
    {
        const Matrix weights = matrix(2, 3,
                                      {0.2f, 0.4f, 0.4f,  //
                                       0.0f, 0.0f, 0.0f});
        const Matrix scaled = AttentionDisplay::perRowScaled(weights, {});
        QCOMPARE(scaled, matrix(2, 3, {0.5f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f}));
    }

    // The percentile of a long input's heads (one kept, the others recomputed a block at a time),
    // found in two passes of bit histograms: exactly AttentionDisplay::percentile of the heads'
    // matrices as the views show them, with and without hidden keys and a mask, at several p.
    void percentileOfALongInputIsTheSameNumber()
    {
        RunSettings config;
        config.d_model = 24;
        config.num_heads = 3;
        config.causal = true;
        const std::optional<LongInputPasses> passes = longInputPasses(config, 260, 31, 1);
        QVERIFY(passes);
        const AttentionResult& blocked = passes->blocked;
        QVERIFY(!blocked.trace.keepsEveryHead());
        MaskMatrix causal(260, 260);
        for (int q = 0; q < 260; ++q)
            for (int k = 0; k < 260; ++k)
                causal(q, k) = k > q;
        for (const QList<int>& hidden : {QList<int>{}, QList<int>{0, 5, 200}}) {
            const AttentionResult shown =
                AttentionDisplay::withHiddenKeys(blocked, AttentionDisplay::shownHiddenKeys(hidden, 260));
            std::vector<Matrix> heads;
            for (int head = 0; head < 3; ++head)
                heads.push_back(*AttentionDisplay::headProbabilities(shown, head));
            for (const MaskMatrix& mask : {MaskMatrix(), causal})
                for (double p : {0.0, 1.0, 50.0, 99.0, 99.9, 100.0}) {
                    const std::optional<double> found = probabilityPercentile(shown, mask, p);
                    QVERIFY(found);
                    QCOMPARE(*found, AttentionDisplay::percentile(heads, mask, p));
                    QCOMPARE(matrixPercentile(heads[1], mask, p), AttentionDisplay::percentile({heads[1]}, mask, p));
                }
        }
        QVERIFY(!probabilityPercentile(blocked, causal, 99.0, [] { return true; }));
    }
};

REGISTER_TEST_SUITE(TestAttentionDisplay, QCoreApplication)
#include "test_attention_display.moc"
