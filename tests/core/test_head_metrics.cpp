// Head metrics and the Jensen-Shannon similarity on hand-made matrices whose values are known.
#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/HeadMetrics.h"
#include "core/analysis/HeadTables.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "tests/support/LongInput.h"
#include "tests/support/TestSuite.h"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace attn;

namespace {

// Float matrices hold each weight to ~6e-8 relative; the double sums over <= 16 of them stay
// well inside 1e-6.
constexpr double kTolerance = 1e-6;

Matrix uniform(int n)
{
    return Matrix::Constant(n, n, 1.0f / float(n));
}

// Row i puts all its weight on key i - 1 (row 0 on itself): a previous-token head.
Matrix previousToken(int n)
{
    Matrix m = Matrix::Zero(n, n);
    m(0, 0) = 1.0f;
    for (int i = 1; i < n; ++i)
        m(i, i - 1) = 1.0f;
    return m;
}

// Every row on key 0: a "first token" (attention sink) head.
Matrix firstToken(int n)
{
    Matrix m = Matrix::Zero(n, n);
    m.col(0).setOnes();
    return m;
}

Matrix causalUniform(int n)
{
    Matrix m = Matrix::Zero(n, n);
    for (int i = 0; i < n; ++i)
        m.row(i).head(i + 1).setConstant(1.0f / float(i + 1));
    return m;
}

}  // namespace

class TestHeadMetrics : public QObject {
    Q_OBJECT

private slots:
    void identityIsOneHotOnTheDiagonal()
    {
        const HeadMetric m = computeHeadMetrics(Matrix::Identity(5, 5));
        QCOMPARE(m.entropy, 0.0);
        QCOMPARE(m.max, 1.0);
        QCOMPARE(m.diagonal, 1.0);
        QCOMPARE(m.previous, 0.0);
        QCOMPARE(m.first, 0.2);  // only row 0 looks at key 0
    }

    void uniformRowsHaveEntropyLnT_data()
    {
        QTest::addColumn<int>("n");
        for (int n : {1, 2, 3, 7, 11, 64})
            QTest::addRow("T=%d", n) << n;
    }
    void uniformRowsHaveEntropyLnT()
    {
        QFETCH(int, n);
        const HeadMetric m = computeHeadMetrics(uniform(n));
        QVERIFY2(std::abs(m.entropy - std::log(double(n))) < kTolerance, qPrintable(QString::number(m.entropy)));
        QVERIFY(std::abs(m.max - 1.0 / n) < kTolerance);
        QVERIFY(std::abs(m.diagonal - 1.0 / n) < kTolerance);
        QVERIFY(std::abs(m.first - 1.0 / n) < kTolerance);
        QVERIFY(std::abs(m.previous - (n == 1 ? 0.0 : 1.0 / n)) < kTolerance);
    }

    void previousTokenPattern()
    {
        const HeadMetric m = computeHeadMetrics(previousToken(6));
        QCOMPARE(m.previous, 1.0);
        QCOMPARE(m.entropy, 0.0);
        QCOMPARE(m.max, 1.0);
        QCOMPARE(m.diagonal, 1.0 / 6.0);  // row 0 only
        QCOMPARE(m.first, 2.0 / 6.0);     // rows 0 and 1
    }

    void firstTokenPattern()
    {
        const HeadMetric m = computeHeadMetrics(firstToken(4));
        QCOMPARE(m.first, 1.0);
        QCOMPARE(m.diagonal, 0.25);
        QCOMPARE(m.previous, 1.0 / 3.0);  // row 1 only, of rows 1..3
    }

    void singleTokenHasNoPrevious()
    {
        const HeadMetric m = computeHeadMetrics(Matrix::Ones(1, 1));
        QCOMPARE(m.previous, 0.0);
        QCOMPARE(m.diagonal, 1.0);
        QCOMPARE(m.first, 1.0);
        QCOMPARE(m.entropy, 0.0);
    }

    // Worked by hand: rows (0.5, 0.5) and (0.25, 0.75).
    //   entropy  = (ln 2 + -(0.25 ln 0.25 + 0.75 ln 0.75)) / 2 = (0.693147 + 0.562335) / 2
    //   max      = (0.5 + 0.75) / 2, diagonal = (0.5 + 0.75) / 2, previous = A10 = 0.25,
    //   first    = (0.5 + 0.25) / 2
    void handComputed2x2()
    {
        Matrix a(2, 2);
        a << 0.5f, 0.5f, 0.25f, 0.75f;
        const HeadMetric m = computeHeadMetrics(a);
        const double row1 = -(0.25 * std::log(0.25) + 0.75 * std::log(0.75));
        QVERIFY(std::abs(m.entropy - (std::log(2.0) + row1) / 2.0) < kTolerance);
        QVERIFY(std::abs(m.entropy - 0.6277411) < 1e-6);  // the same, as a number
        QCOMPARE(m.max, 0.625);
        QCOMPARE(m.diagonal, 0.625);
        QCOMPARE(m.previous, 0.25);
        QCOMPARE(m.first, 0.375);
    }

    // A causal head: the zeros above the diagonal count as 0 ln 0 = 0.
    void causalUniformRows()
    {
        const int n = 4;
        const HeadMetric m = computeHeadMetrics(causalUniform(n));
        double entropy = 0.0, max = 0.0;
        for (int i = 1; i <= n; ++i) {
            entropy += std::log(double(i));
            max += 1.0 / i;
        }
        QVERIFY(std::abs(m.entropy - entropy / n) < kTolerance);
        QVERIFY(std::abs(m.max - max / n) < kTolerance);
        QVERIFY(std::abs(m.diagonal - max / n) < kTolerance);
        QVERIFY(std::abs(m.previous - (1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3) < kTolerance);
    }

    // A query that sees no key (all its keys padded) holds no distribution and is left out.
    void emptyRowsAreLeftOut()
    {
        Matrix a = Matrix::Identity(3, 3);
        a.row(2).setZero();
        const HeadMetric m = computeHeadMetrics(a);
        QCOMPARE(m.diagonal, 1.0);
        QCOMPARE(m.entropy, 0.0);
        QCOMPARE(m.first, 0.5);
        const HeadMetric none = computeHeadMetrics(Matrix::Zero(2, 2));
        QCOMPARE(none.entropy, 0.0);
        QCOMPARE(none.max, 0.0);
    }

    // Rows (1, 0) vs (0.5, 0.5): m = (0.75, 0.25),
    //   JS = 1/2 [1 ln(1/0.75)] + 1/2 [0.5 ln(0.5/0.75) + 0.5 ln(0.5/0.25)] = 0.2157616
    // and identical second rows contribute 0, so the mean over two rows is 0.1078808.
    void jensenShannonByHand()
    {
        Matrix a(2, 2), b(2, 2);
        a << 1.0f, 0.0f, 0.3f, 0.7f;
        b << 0.5f, 0.5f, 0.3f, 0.7f;
        const double row0 = 0.5 * std::log(1.0 / 0.75) + 0.5 * (0.5 * std::log(0.5 / 0.75) + 0.5 * std::log(2.0));
        QVERIFY(std::abs(row0 - 0.2157616) < 1e-7);
        QVERIFY(std::abs(jensenShannon(a, b) - row0 / 2.0) < 1e-9);
        QCOMPARE(jensenShannon(a, b), jensenShannon(b, a));
    }

    void jensenShannonBounds()
    {
        // Disjoint one-hot rows reach ln 2 exactly (up to rounding).
        const double disjoint = jensenShannon(Matrix::Identity(4, 4), firstToken(4));
        // Row 0 is the same in both (key 0): 3 of 4 rows are disjoint.
        QVERIFY(std::abs(disjoint - 0.75 * std::numbers::ln2) < 1e-12);
        QVERIFY(std::abs(jensenShannon(Matrix::Identity(3, 3), previousToken(3)) - 2.0 / 3.0 * std::numbers::ln2) <
                1e-12);
        QCOMPARE(jensenShannon(uniform(5), uniform(5)), 0.0);
        // A row with weight against one with none counts as ln 2; rows empty in both are left out.
        Matrix empty = Matrix::Identity(2, 2);
        empty.row(1).setZero();
        QVERIFY(std::abs(jensenShannon(Matrix::Identity(2, 2), empty) - 0.5 * std::numbers::ln2) < 1e-12);
        QCOMPARE(jensenShannon(empty, empty), 0.0);
    }

    // On real heads (the default sentence, 8 random heads): 0 on the diagonal, symmetric bit
    // for bit, inside [0, ln 2].
    void similarityOfRealHeads()
    {
        RunSettings config;
        auto result = AttentionPipeline::run(config, RunSettings::defaultSentence(), TraceDetail::Probabilities);
        QVERIFY2(result.ok(), qPrintable(result.error()));
        const MatrixD s = similarityMatrix(result->trace.probabilities);
        QCOMPARE(s.rows(), 8);
        QCOMPARE(s.cols(), 8);
        for (int x = 0; x < 8; ++x) {
            QCOMPARE(s(x, x), 0.0);
            for (int y = 0; y < 8; ++y) {
                QCOMPARE(s(x, y), s(y, x));
                QVERIFY(s(x, y) >= 0.0);
                QVERIFY(s(x, y) <= std::numbers::ln2);
                if (x != y)
                    QVERIFY(s(x, y) > 0.0);  // random heads are not identical
                QCOMPARE(s(x, y), jensenShannon(result->trace.probabilities[size_t(x)], result->trace.probabilities[size_t(y)]));
            }
        }
        // The causal version of the same heads as well (zeros above the diagonal).
        config.causal = true;
        auto causal = AttentionPipeline::run(config, RunSettings::defaultSentence(), TraceDetail::Probabilities);
        QVERIFY(causal.ok());
        const MatrixD c = similarityMatrix(causal->trace.probabilities);
        QVERIFY((c - c.transpose()).cwiseAbs().maxCoeff() == 0.0);
        QVERIFY(c.maxCoeff() <= std::numbers::ln2);
        QVERIFY(c.diagonal().cwiseAbs().maxCoeff() == 0.0);
    }

    void similarityOfHandMadeHeads()
    {
        const std::vector<Matrix> heads{Matrix::Identity(4, 4), uniform(4), firstToken(4)};
        const MatrixD s = similarityMatrix(heads);
        QCOMPARE(s(0, 2), jensenShannon(heads[0], heads[2]));
        QVERIFY(std::abs(s(0, 2) - 0.75 * std::numbers::ln2) < 1e-12);
        QVERIFY(s(0, 1) > 0.0 && s(0, 1) < std::numbers::ln2);
        QCOMPARE(similarityMatrix({}).rows(), 0);
        QCOMPARE(similarityMatrix({uniform(3)})(0, 0), 0.0);
    }

    // Heads 0, 2, 4 are one pattern and 1, 3 another (with small perturbations): the order keeps
    // each group together, is a permutation, and is the same every time.
    void orderPutsSimilarHeadsTogether()
    {
        auto perturbed = [](Matrix m, float eps, int row) {
            m(row, 0) += eps;
            m.row(row) /= m.row(row).sum();
            return m;
        };
        const std::vector<Matrix> heads{perturbed(Matrix::Identity(4, 4), 0.05f, 1), perturbed(firstToken(4), 0.1f, 2),
                                        perturbed(Matrix::Identity(4, 4), 0.10f, 2), firstToken(4),
                                        Matrix::Identity(4, 4)};
        const std::vector<int> order = similarityOrder(similarityMatrix(heads));
        QCOMPARE(order.size(), size_t(5));
        std::vector<int> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(sorted, (std::vector<int>{0, 1, 2, 3, 4}));
        auto group = [](int h) { return h % 2; };
        int changes = 0;
        for (size_t i = 1; i < order.size(); ++i)
            changes += group(order[i]) != group(order[i - 1]);
        QCOMPARE(changes, 1);
        QCOMPARE(similarityOrder(similarityMatrix(heads)), order);
        QCOMPARE(similarityOrder(MatrixD()), std::vector<int>{});
        QCOMPARE(similarityOrder(MatrixD::Zero(1, 1)), std::vector<int>{0});
        QCOMPARE(similarityOrder(MatrixD::Zero(3, 3)), (std::vector<int>{0, 1, 2}));
    }

    // A long input's tables, its heads recomputed a block of rows at a time, against the metrics and
    // similarity of its heads' whole matrices (AttentionDisplay::headProbabilities, as the compare view
    // computed them before): bit for bit when every row is compared; within a budget, the mean
    // over the chosen blocks' rows. Against the ordinary pass keeping every head, whose weights
    // may differ in the last bit (a row's softmax sums depend on its alignment): to rounding.
    void headTablesOfALongInputAreThoseOfItsHeads_data()
    {
        QTest::addColumn<bool>("causal");
        QTest::addColumn<int>("kept");
        QTest::addColumn<QList<int>>("hidden");
        QTest::newRow("bidirectional, head 0 kept") << false << 0 << QList<int>{};
        QTest::newRow("causal, head 2 kept") << true << 2 << QList<int>{};
        QTest::newRow("causal, hidden keys") << true << 1 << QList<int>{0, 77};
    }

    void headTablesOfALongInputAreThoseOfItsHeads()
    {
        QFETCH(bool, causal);
        QFETCH(int, kept);
        QFETCH(QList<int>, hidden);
        RunSettings config;
        config.d_model = 32;
        config.num_heads = 4;
        config.causal = causal;
        const std::optional<LongInputPasses> passes = longInputPasses(config, 300, 41, kept);
        QVERIFY(passes);
        QVERIFY(passes->full.trace.keepsEveryHead());
        QVERIFY(!passes->blocked.trace.keepsEveryHead());
        const std::vector<bool> flags = AttentionDisplay::shownHiddenKeys(hidden, 300);
        const AttentionResult shown_full = AttentionDisplay::withHiddenKeys(passes->full, flags);
        const AttentionResult shown_blocked = AttentionDisplay::withHiddenKeys(passes->blocked, flags);

        std::vector<Matrix> heads;  // as the views show them: (300, 300) each
        for (int head = 0; head < 4; ++head)
            heads.push_back(*AttentionDisplay::headProbabilities(shown_blocked, head));
        HeadTables expected;
        expected.metrics = computeHeadMetrics(heads);
        expected.divergence = similarityMatrix(heads);
        const HeadTables tables = HeadTables::compute(shown_blocked);
        QVERIFY(tables.complete);
        QCOMPARE(tables.query_rows, 300);
        QCOMPARE(tables.divergence_rows, 300);
        for (int head = 0; head < 4; ++head) {
            QCOMPARE(tables.metrics[size_t(head)].entropy, expected.metrics[size_t(head)].entropy);
            QCOMPARE(tables.metrics[size_t(head)].max, expected.metrics[size_t(head)].max);
            QCOMPARE(tables.metrics[size_t(head)].diagonal, expected.metrics[size_t(head)].diagonal);
            QCOMPARE(tables.metrics[size_t(head)].previous, expected.metrics[size_t(head)].previous);
            QCOMPARE(tables.metrics[size_t(head)].first, expected.metrics[size_t(head)].first);
        }
        QVERIFY(tables.divergence == expected.divergence);
        const HeadTables ordinary = HeadTables::compute(shown_full);
        QVERIFY(ordinary.complete);
        QCOMPARE(ordinary.divergence_rows, 300);
        for (int head = 0; head < 4; ++head)  // rows of ~300 float weights summed in double
            QVERIFY(std::abs(ordinary.metrics[size_t(head)].entropy - tables.metrics[size_t(head)].entropy) < 1e-6);
        QVERIFY((ordinary.divergence - tables.divergence).cwiseAbs().maxCoeff() < 1e-6);

        // A budget of 2 blocks' rows (64 each): blocks 1 and 3 of 5, the mean over their 128 rows.
        const HeadTables sampled = HeadTables::compute(shown_blocked, 6 * 2 * 64 * 300);
        QCOMPARE(sampled.divergence_rows, 128);
        QCOMPARE(sampled.query_rows, 300);
        QVERIFY(sampled.metrics[0].entropy == expected.metrics[0].entropy);  // every row still
        std::vector<Matrix> rows_of_blocks;
        for (const Matrix& head : heads) {
            Matrix chosen(128, 300);
            chosen << head.middleRows(64, 64), head.middleRows(192, 64);
            rows_of_blocks.push_back(chosen);
        }
        QVERIFY(sampled.divergence == similarityMatrix(rows_of_blocks));

        // Asked to stop: nothing complete.
        QVERIFY(!HeadTables::compute(shown_blocked, HeadTables::kDivergenceCells, [] { return true; }).complete);
    }

    void benchmarkSimilarity256Tokens12Heads()
    {
        RunSettings config;
        config.d_model = 768;
        config.num_heads = 12;
        QString sentence;
        for (int i = 0; i < 256; ++i)
            sentence += QStringLiteral("w%1 ").arg(i);
        auto result = AttentionPipeline::run(config, sentence, TraceDetail::Probabilities);
        QVERIFY(result.ok());
        QCOMPARE(result->seqLen(), 256);
        MatrixD s;
        QBENCHMARK
        {
            s = similarityMatrix(result->trace.probabilities);
        }
        QCOMPARE(s.rows(), 12);
    }
};

REGISTER_TEST_SUITE(TestHeadMetrics, QCoreApplication)
#include "test_head_metrics.moc"
