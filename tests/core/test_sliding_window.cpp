// Mistral's sliding window in the engine: with the causal mask and a window of w keys, query i
// sees keys i - w + 1 .. i (transformers' sliding-window causal mask), every other weight exactly
// 0, the visible ones a softmax over just those keys.
#include "core/attention/AttentionEngine.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>

using namespace attn;

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
        auto trace = AttentionEngine::forward(x, *weights, options);
        QVERIFY2(trace, qPrintable(trace.error()));
        options.sliding_window = 0;
        auto full = AttentionEngine::forward(x, *weights, options);
        QVERIFY(full);

        for (int h = 0; h < 3; ++h) {
            const Matrix& w = trace->probabilities[size_t(h)];  // (T, T)
            for (int i = 0; i < kTokens; ++i) {
                const int first = std::max(0, i - kWindow + 1);
                for (int j = 0; j < kTokens; ++j) {
                    QCOMPARE(trace->isMasked(i, j), j > i || j < first);
                    if (trace->isMasked(i, j))
                        QCOMPARE(w(i, j), 0.0f);
                }
                QVERIFY(std::abs(w.row(i).sum() - 1.0f) < 1e-5f);
                // The visible weights are the full causal row's, renormalised over the window.
                const auto full_row = full->probabilities[size_t(h)].row(i).segment(first, i - first + 1);
                const RowVector expected = full_row / full_row.sum();
                QVERIFY((w.row(i).segment(first, i - first + 1) - expected).cwiseAbs().maxCoeff() < 1e-5f);
            }
        }
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
