// VocabularyTopK (the logit lens's pass over the vocabulary) against the whole rows of logits
// computed in float64: small integer inputs and weights make every logit exact in float32 in any
// order of sums, so many logits tie exactly and the order "logit descending, ties: the lower id
// first" is tested as it is, not up to rounding.
#include "core/base/SplitMix64.h"
#include "core/ops/VocabularyTopK.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace attn;
using namespace attn::testing;

namespace {

// Entries in -range..range: every logit is an integer of at most C range^2 + range in size.
Matrix integerMatrix(int rows, int cols, int range, std::uint64_t seed)
{
    SplitMix64 rng(seed);
    Matrix m(rows, cols);
    for (float& v : m.reshaped())
        v = float(int(rng.next() % std::uint64_t(2 * range + 1)) - range);
    return m;
}

}  // namespace

class TestVocabularyTopK : public QObject {
    Q_OBJECT

private slots:
    void matchesWholeRows_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("vocab");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("tracked");
        QTest::addColumn<bool>("bias");
        // One thread and the threads' share-out; a vocabulary of one partial chunk and of several
        // with a partial last one; the tracked id first, inside a later chunk, last.
        QTest::addRow("one row, one chunk") << 1 << 300 << 5 << 0 << false;
        QTest::addRow("threads, tracked inside") << 70 << int(3 * VocabularyTopK::kChunk + 77) << 7 << 1100 << true;
        QTest::addRow("threads, tracked last")
            << 70 << int(3 * VocabularyTopK::kChunk + 77) << 100 << int(3 * VocabularyTopK::kChunk + 76) << false;
        QTest::addRow("k above vocab") << 3 << 40 << 100 << 17 << true;
    }

    void matchesWholeRows()
    {
        QFETCH(int, rows);
        QFETCH(int, vocab);
        QFETCH(int, k);
        QFETCH(int, tracked);
        QFETCH(bool, bias);
        const int width = 24;
        const Matrix x = integerMatrix(rows, width, 2, 11);
        const Matrix w = integerMatrix(vocab, width, 2, 12);
        const RowVector b = bias ? RowVector(integerMatrix(1, vocab, 3, 13)) : RowVector();
        std::vector<LogitSummary> summaries;
        QVERIFY(VocabularyTopK::reduce(x, w, b, k, tracked, summaries));
        QCOMPARE(int(summaries.size()), rows);

        const MatrixD z = x.cast<double>() * w.cast<double>().transpose();  // exact: small integers
        double worst_sum = 0;
        int ties = 0;
        for (int r = 0; r < rows; ++r) {
            Eigen::RowVectorXd row = z.row(r);
            if (bias)
                row += b.cast<double>();
            std::vector<int> order(static_cast<size_t>(vocab));
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&row](int a, int c) { return row(a) > row(c); });
            const LogitSummary& s = summaries[size_t(r)];
            const int kept = std::min(k, vocab);
            QCOMPARE(int(s.top_ids.size()), kept);
            for (int i = 0; i < kept; ++i) {
                QCOMPARE(s.top_ids[size_t(i)], order[size_t(i)]);
                QCOMPARE(double(s.top_logits[size_t(i)]), row(order[size_t(i)]));
                ties += i > 0 && row(order[size_t(i)]) == row(order[size_t(i - 1)]);
            }
            QCOMPARE(double(s.max), row.maxCoeff());
            QCOMPARE(double(s.tracked_logit), row(tracked));
            const int rank = int(std::find(order.begin(), order.end(), tracked) - order.begin());
            QCOMPARE(s.tracked_before, rank);
            // Each chunk's float32 sum of exp(z - its max), each term within u of its value (the
            // argument exact, exp within a couple of ulps: 4u), summed within gamma_n of the sum of
            // |terms|, then rescaled in double: within (4u + gamma_kChunk) of the exact sum.
            const double exact = (row.array() - row.maxCoeff()).exp().sum();
            const double bound = (4 * kUnitRoundoff + gammaOf(VocabularyTopK::kChunk)) * exact;
            worst_sum = std::max(worst_sum, std::abs(s.exp_sum - exact) / bound);
            QVERIFY2(std::abs(s.exp_sum - exact) <= bound,
                     qPrintable(QStringLiteral("row %1: exp sum %2, float64 %3").arg(r).arg(s.exp_sum).arg(exact)));
        }
        qInfo("worst exp-sum error %.3g of its bound; %d exact ties in the top K", worst_sum, ties);
        if (rows > 1)
            QVERIFY(ties > 0);  // the case tests the tie order
    }

    void refusesNonFiniteLogits()
    {
        Matrix w = integerMatrix(900, 8, 2, 3);
        w(700, 2) = std::numeric_limits<float>::quiet_NaN();
        std::vector<LogitSummary> summaries;
        QVERIFY(!VocabularyTopK::reduce(integerMatrix(4, 8, 2, 4), w, RowVector(), 5, std::nullopt, summaries));
        QVERIFY(!VocabularyTopK::reduce(integerMatrix(4, 8, 2, 4), w, RowVector(), 5, 700, summaries));
    }
};

REGISTER_TEST_SUITE(TestVocabularyTopK, QCoreApplication)
#include "test_vocabulary_top_k.moc"
