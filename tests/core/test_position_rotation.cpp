// The position-rotation seam (AttentionOptions::rotate_positions): applied to Q and K before the scores.
#include "core/attention/AttentionEngine.h"
#include "tests/support/EngineReference.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

using namespace attn;
using namespace attn::test;

namespace {

// What a position rotation was called with.
struct RotationCall {
    RotatedProjection which;
    Eigen::Index rows, cols;
    int heads, head_dim, first_position;
};

}  // namespace

class TestPositionRotation : public QObject {
    Q_OBJECT

private slots:
    void positionRotationIsAppliedToQueriesAndKeysBeforeTheScores()
    {
        const GroupedParts parts = groupedParts(12, 4, 2, 4, 16, true, 51);
        const AttentionWeights w = parts.weights();
        const Matrix x = randomMatrix(10, 12, 52);
        const AttentionTrace plain = AttentionEngine::forward(x, w).value();

        // A rotation that negates the keys: every raw score changes sign.
        std::vector<RotationCall> calls;
        AttentionOptions options;
        options.rotate_positions = [&calls](MatrixRef projected, int heads, int head_dim, int first_position,
                                            RotatedProjection which) {
            calls.push_back({which, projected.rows(), projected.cols(), heads, head_dim, first_position});
            if (which == RotatedProjection::Keys)
                projected = -projected;
        };
        const AttentionTrace rotated = AttentionEngine::forward(x, w, options).value();
        QCOMPARE(calls.size(), size_t(2));
        QCOMPARE(calls[0].which, RotatedProjection::Queries);
        QCOMPARE(calls[0].rows, Eigen::Index(10));
        QCOMPARE(calls[0].cols, Eigen::Index(16));  // (seq_len, heads * head_dim)
        QCOMPARE(calls[0].heads, 4);
        QCOMPARE(calls[0].head_dim, 4);
        QCOMPARE(calls[0].first_position, 0);
        QCOMPARE(calls[1].which, RotatedProjection::Keys);
        QCOMPARE(calls[1].cols, Eigen::Index(8));  // (seq_len, kv_heads * head_dim)
        QCOMPARE(calls[1].heads, 2);
        QCOMPARE(calls[1].first_position, 0);
        QCOMPARE(rotated.q, plain.q);
        QCOMPARE(rotated.k, Matrix(-plain.k));  // the trace shows the keys the scores were made from
        for (int h = 0; h < 4; ++h) {
            QCOMPARE(rotated.scores[size_t(h)], Matrix(-plain.scores[size_t(h)]));  // negation is exact
            QVERIFY(rotated.probabilities[size_t(h)] != plain.probabilities[size_t(h)]);
        }
        // It is the pass of the negated key projection, to the bit (negation commutes with rounding).
        GroupedParts negated = parts;
        negated.wk = -parts.wk;
        negated.bk = -parts.bk;
        const AttentionTrace expected = AttentionEngine::forward(x, negated.weights()).value();
        QCOMPARE(rotated.probabilities, expected.probabilities);
        QCOMPARE(rotated.output, expected.output);

        // Scaling the queries by 2 doubles the raw scores; the scale stays the engine's own.
        options.rotate_positions = [](MatrixRef projected, int, int, int, RotatedProjection which) {
            if (which == RotatedProjection::Queries)
                projected *= 2.0f;
        };
        const AttentionTrace doubled = AttentionEngine::forward(x, w, options).value();
        QCOMPARE(doubled.scale, plain.scale);
        for (int h = 0; h < 4; ++h)
            QCOMPARE(doubled.scores[size_t(h)], Matrix(2.0f * plain.scores[size_t(h)]));  // times 2 is exact
    }
};

REGISTER_TEST_SUITE(TestPositionRotation, QCoreApplication)
#include "test_position_rotation.moc"
