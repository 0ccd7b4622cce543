// Mistral's sliding window in the engine: with the causal mask and a window of w keys, query i
// sees keys i - w + 1 .. i (transformers' sliding-window causal mask), every other weight exactly
// 0, the visible ones a softmax over just those keys.
#include "core/attention/AttentionEngine.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>

using namespace attn;
using namespace attn::testing;

class TestSlidingWindow : public QObject {
    Q_OBJECT

private slots:
    void queriesSeeOnlyTheLastKeys()
    {
        constexpr int kTokens = 70;  // more than one block of query rows (64)
        constexpr int kWindow = 5;
        auto weights = AttentionWeights::random(12, 12, 3, 1, 11);  // 3 query heads, 1 key/value head
        QVERIFY2(weights, qPrintable(weights.error()));
        Matrix x(kTokens, 12);  // (T, C)
        for (int i = 0; i < x.size(); ++i)
            x.data()[i] = float(std::sin(0.37 * i));
        AttentionOptions options;
        options.causal = true;
        options.sliding_window = kWindow;
        options.detail = TraceDetail::Full;  // the raw scores, for the float64 softmax over the window
        auto trace = AttentionEngine::forward(x, *weights, options);
        QVERIFY2(trace, qPrintable(trace.error()));

        double worst = 0.0;
        for (int h = 0; h < 3; ++h) {
            const Matrix& w = trace->probabilities[size_t(h)];  // (T, T)
            const Matrix& scores = trace->scores[size_t(h)];    // raw Q_h K_h^T
            for (int i = 0; i < kTokens; ++i) {
                const int first = std::max(0, i - kWindow + 1);
                const int keys = i - first + 1;
                for (int j = 0; j < kTokens; ++j) {
                    QCOMPARE(trace->isMasked(i, j), j > i || j < first);
                    if (trace->isMasked(i, j))
                        QCOMPARE(w(i, j), 0.0f);
                }
                // The visible weights are the softmax over just those keys: against the float64
                // softmax of the same float32 scores, within one pass's rounding (Float32Bounds.h):
                // (s - max) and its product by 1 / scale (itself rounded) move each exponent by at
                // most 3 u |s - max| / scale, and probabilityBound adds the exponentials', the
                // sum's and the division's roundings.
                const Eigen::RowVectorXd s = scores.row(i).segment(first, keys).cast<double>();
                const double inv_scale = 1.0 / double(trace->scale);
                const Eigen::RowVectorXd e = ((s.array() - s.maxCoeff()) * inv_scale).exp();
                const DoubleMatrix expected = e / e.sum();
                const DoubleMatrix got = w.row(i).segment(first, keys).cast<double>();
                const Eigen::VectorXd delta = Eigen::VectorXd::Constant(
                    1, 3.0 * kUnitRoundoff * inv_scale * (s.array() - s.maxCoeff()).abs().maxCoeff());
                const DoubleMatrix bound = probabilityBound(expected.cwiseMax(got), delta, 1);
                double share = 0.0;
                const QString beyond =
                    beyondBound("window", Matrix(w.row(i).segment(first, keys)), expected, bound, &share);
                worst = std::max(worst, share);
                QVERIFY2(beyond.isEmpty(),
                         qPrintable(QStringLiteral("head %1, query %2: %3").arg(h).arg(i).arg(beyond)));
                // Each row sums to 1 within rowSumBound of its visible keys (summed in double here).
                QVERIFY(std::abs(w.row(i).cast<double>().sum() - 1.0) <= rowSumBound(keys));
            }
        }
        qInfo("worst error %.3g of the float32 bound", worst);
    }

    void aNegativeWindowIsRefused()
    {
        auto weights = AttentionWeights::random(4, 4, 1, 3);
        AttentionOptions options;
        options.causal = true;
        options.sliding_window = -1;
        auto trace = AttentionEngine::forward(Matrix::Ones(3, 4), *weights, options);
        QVERIFY(!trace);
        QVERIFY2(trace.error().contains("sliding window"), qPrintable(trace.error()));
    }
};

REGISTER_TEST_SUITE(TestSlidingWindow, QCoreApplication)
#include "test_sliding_window.moc"
