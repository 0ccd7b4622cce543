// The walkthrough's numbers (core/analysis/WalkthroughData): the toy example gives the tutorial's
// values, step by step; every step is the trace's numbers; bad selections are clamped, and long
// inputs show the query's row only.

#include "core/analysis/WalkthroughData.h"
#include "core/pipeline/Examples.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/LongInput.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "tests/support/ToyAttention.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <optional>

using namespace attn;
using namespace attn::testing;

namespace {

// The tutorial prints four decimals; the engine's float32 numbers agree to rounding.
constexpr double kPrinted = 0.5e-4;

// Two float32 sums of the same n rounded products in any order, one of them perhaps with fused
// multiply-adds on the exact products: within u (the products' rounding) + 2 gamma_n of the sum of
// |products| of each other (tests/support/Float32Bounds.h).
double twoSumsBound(const RowVector& products)
{
    const Eigen::Index n = products.size();
    return (kUnitRoundoff + 2 * gammaOf(n)) * (1 + kUnitRoundoff) * double(products.cwiseAbs().sum());
}

void compareRow(const Matrix& values, int row, std::initializer_list<double> expected, double tolerance)
{
    QCOMPARE(values.cols(), qsizetype(expected.size()));
    int c = 0;
    for (double e : expected) {
        if (std::abs(values(row, c) - e) > tolerance)
            QFAIL(qPrintable(QStringLiteral("(%1, %2) = %3, expected %4").arg(row).arg(c).arg(values(row, c)).arg(e)));
        ++c;
    }
}

}  // namespace

class TestWalkthroughData : public QObject {
    Q_OBJECT

private slots:
    void toyExample()
    {
        const AttentionResult toy = test::toyResult();
        const WalkthroughData walk = WalkthroughData::build(toy, 0, 0);
        QCOMPARE(int(walk.steps.size()), WalkthroughData::kStepCount);
        for (int n = 1; n <= WalkthroughData::kStepCount; ++n) {
            QCOMPARE(walk.step(n).number, n);
            QVERIFY(!walk.step(n).title.isEmpty());
            QVERIFY(walk.step(n).unavailable.isEmpty());
            QVERIFY(!walk.step(n).tables.empty());
        }
        QCOMPARE(walk.step(1).tables.size(), size_t(1));  // no positional part for a given matrix
        compareRow(walk.step(1).tables[0].values, 0, {1, 0, 1, 0}, 0);
        compareRow(walk.step(2).tables[0].values, 0, {1, 0, 2}, 0);  // q
        compareRow(walk.step(2).tables[1].values, 1, {4, 4, 0}, 0);  // k_1
        compareRow(walk.step(2).tables[2].values, 2, {2, 6, 3}, 0);  // v_2
        // Integer inputs: the scores are exact.
        compareRow(walk.step(3).tables[0].values, 0, {2, 4, 4}, 0);
        compareRow(walk.step(4).tables[0].values, 0, {2, 4, 4}, 0);  // scale 1
        compareRow(walk.step(5).tables[0].values, 0, {2, 4, 4}, 0);  // no mask
        compareRow(walk.step(6).tables[0].values, 0, {0.0634, 0.4683, 0.4683}, kPrinted);
        const Matrix& weighted = walk.step(7).tables[0].values;
        compareRow(weighted, 0, {0.0634, 0.1268, 0.1901}, kPrinted);  // 0.063379 x (1, 2, 3)
        compareRow(weighted, 1, {0.9366, 3.7465, 0}, kPrinted);       // 0.4683 x (2, 8, 0)
        compareRow(walk.step(8).tables[0].values, 0, {1.9366, 6.6831, 1.5951}, kPrinted);
        compareRow(walk.step(9).tables[0].values, 0, {1.9366, 6.6831, 1.5951}, kPrinted);
        compareRow(walk.step(10).tables[0].values, 0, {1.9366, 6.6831, 1.5951}, kPrinted);
        // Step 8 is the sum of step 7's rows (float32 sums in another order).
        const RowVector sum = weighted.colwise().sum();
        for (int i = 0; i < 3; ++i)
            QVERIFY(std::abs(sum[i] - walk.step(8).tables[0].values(0, i)) <=
                    twoSumsBound(weighted.col(i).transpose()));
        // Breakdown of score (0, 0) = q0 . k0 = (1, 0, 2) . (0, 1, 1) = 0 + 0 + 2.
        compareRow(walk.products.values, 0, {0, 0, 2}, 0);
        compareRow(walk.products.values, 1, {4, 0, 0}, 0);
        compareRow(walk.products.values, 2, {2, 0, 2}, 0);
        QCOMPARE(walk.step(6).tables[0].highlighted_row, 0);
        QCOMPARE(walk.step(2).formula, QStringLiteral("q_t = x_t Wq, columns 0 … 2 of Q (likewise k, v)"));
        QCOMPARE(walk.step(10).formula, QStringLiteral("no output projection: y = concat"));
        QCOMPARE(walk.step(4).formula, QStringLiteral("s_j / 1"));
    }

    // The same toy from the shipped files, as the Examples menu loads it.
    void toyExampleFromFiles()
    {
        auto example = Examples::toyFourDim(sourcePath("resources/examples"));
        QVERIFY2(example.ok(), qPrintable(example.error()));
        QCOMPARE(example->title, QStringLiteral("Toy 4-dimensional attention"));
        QCOMPARE(example->config.scale.mode, ScaleSetting::Mode::None);
        QVERIFY(!example->config.positional_encoding);
        QCOMPARE(example->input.x, test::matrix({{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}}));
        auto result = Examples::run(example.value());
        QVERIFY2(result.ok(), qPrintable(result.error()));
        QVERIFY(result->weights_description.contains(QStringLiteral("toy-4d.json")));
        QVERIFY(!result->has_output_projection);

        const WalkthroughData walk = WalkthroughData::build(result.value(), 0, 0);
        compareRow(walk.step(3).tables[0].values, 0, {2, 4, 4}, 0);
        compareRow(walk.step(6).tables[0].values, 0, {0.0634, 0.4683, 0.4683}, kPrinted);
        compareRow(walk.step(8).tables[0].values, 0, {1.9366, 6.6831, 1.5951}, kPrinted);
        compareRow(walk.step(10).tables[0].values, 0, {1.9366, 6.6831, 1.5951}, kPrinted);
        // Exactly the numbers of the toy built in code: same weights, same input, same engine.
        const AttentionResult built = test::toyResult();
        QCOMPARE(result->trace.probabilities[0], built.trace.probabilities[0]);
        QCOMPARE(result->trace.output, built.trace.output);

        const auto missing = Examples::toyFourDim(sourcePath("no-such-directory"));
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error().contains(QStringLiteral("toy-4d.json")), qPrintable(missing.error()));
    }

    void toyCausal()
    {
        const AttentionResult toy = test::toyResult(true);
        const WalkthroughData walk = WalkthroughData::build(toy, 0, 1);
        const Matrix& masked = walk.step(5).tables[0].values;
        QCOMPARE(masked(1, 0), 4.0f);  // q1 . k0 = (2, 2, 2) . (0, 1, 1), visible: unchanged
        QCOMPARE(masked(1, 0), walk.step(4).tables[0].values(1, 0));
        QCOMPARE(masked(1, 2), -std::numeric_limits<float>::infinity());
        QCOMPARE(masked(0, 1), -std::numeric_limits<float>::infinity());
        QVERIFY(std::isfinite(masked(2, 2)));
        QCOMPARE(walk.step(6).tables[0].values(1, 2), 0.0f);
        QVERIFY(walk.step(5).formula.contains(QStringLiteral("causal")));
        QCOMPARE(walk.step(7).tables[0].values.row(2), RowVector::Zero(3));  // weight 0 x v_2
    }

    // Every table holds exactly the trace's numbers, for a head and query that are not the first.
    void equalsTrace()
    {
        const AttentionResult result = test::sentenceResult(24, 3, 20, true);
        const AttentionTrace& trace = result.trace;
        const int head = 2, query = 5;
        const WalkthroughData walk = WalkthroughData::build(result, head, query);
        QCOMPARE(walk.head, head);
        QCOMPARE(walk.query, query);
        const int seq_len = result.seqLen();

        QCOMPARE(walk.step(1).tables.size(), size_t(2));
        QCOMPARE(walk.step(1).tables[0].values, result.input.x);
        QCOMPARE(walk.step(1).tables[1].values, result.input.positional);
        QCOMPARE(walk.step(1).tables[0].row_labels.size(), seq_len);
        QCOMPARE(walk.step(1).tables[0].row_labels[1], QStringLiteral("1 cat"));
        QCOMPARE(walk.step(2).tables[0].values, Matrix(trace.qHead(head)));
        QCOMPARE(walk.step(2).tables[1].values, Matrix(trace.kHead(head)));
        QCOMPARE(walk.step(2).tables[2].values, Matrix(trace.vHead(head)));
        QCOMPARE(walk.step(3).tables[0].values, trace.scores[head]);
        for (int i = 0; i < seq_len; ++i)
            for (int j = 0; j < seq_len; ++j) {
                QCOMPARE(walk.step(4).tables[0].values(i, j), trace.scaledScore(head, i, j));
                QCOMPARE(walk.step(5).tables[0].values(i, j), trace.maskedScore(head, i, j));
            }
        QCOMPARE(walk.step(6).tables[0].values, trace.probabilities[head]);
        for (int j = 0; j < seq_len; ++j)
            QCOMPARE(Matrix(walk.step(7).tables[0].values.row(j)),
                     Matrix(trace.probabilities[head](query, j) * trace.vHead(head).row(j)));
        QCOMPARE(walk.step(8).tables[0].values, Matrix(trace.headOutput(head)));
        QCOMPARE(walk.step(9).tables[0].values, trace.concat);
        QCOMPARE(walk.step(9).tables[0].highlighted_first_column, head * trace.head_dim);
        QCOMPARE(walk.step(9).tables[0].highlighted_column_count, trace.head_dim);
        QCOMPARE(walk.step(9).tables[0].column_labels[head * trace.head_dim], QStringLiteral("h2:0"));
        QCOMPARE(walk.step(10).tables[0].values, trace.output);
        QVERIFY(walk.step(2).formula.startsWith(QStringLiteral("q_t = x_t Wq + bq, columns 16 … 23")));
        QCOMPARE(walk.step(10).formula, QStringLiteral("y = concat Wo + bo"));
        QCOMPARE(walk.step(4).formula, QStringLiteral("s_j / √d_k = s_j / √8 = s_j / 2.82843"));
        for (int n : {1, 3, 4, 5, 6, 8, 9, 10})
            QCOMPARE(walk.step(n).tables[0].highlighted_row, query);

        // The breakdown's rows sum to the raw scores (float sums in another order).
        QCOMPARE(walk.products.values.rows(), qsizetype(seq_len));
        QCOMPARE(walk.products.values.cols(), qsizetype(trace.head_dim));
        for (int j = 0; j < seq_len; ++j) {
            const float sum = walk.products.values.row(j).sum();
            QVERIFY2(std::abs(sum - trace.scores[head](query, j)) <= twoSumsBound(walk.products.values.row(j)),
                     qPrintable(QStringLiteral("key %1: %2 vs %3").arg(j).arg(sum).arg(trace.scores[head](query, j))));
        }
    }

    void clampsAndDegrades()
    {
        const AttentionResult toy = test::toyResult();
        const WalkthroughData walk = WalkthroughData::build(toy, 7, 99);
        QCOMPARE(walk.head, 0);
        QCOMPARE(walk.query, 2);
        QCOMPARE(WalkthroughData::build(toy, -1, -1).query, 0);
        QVERIFY(WalkthroughData::build(AttentionResult{}, 0, 0).steps.empty());

        // Without the full trace the raw scores are computed for the head from Q and K: the same
        // numbers as the full trace's, up to the order of the additions: two float32 passes over
        // d_k products (2 gamma_{d_k} of the sum of |q_i k_i|), and for the scaled and masked
        // steps each pass's division by the scale (u of the result).
        RunSettings config;
        config.d_model = 8;
        config.num_heads = 2;
        config.causal = true;
        auto light = AttentionPipeline::run(config, QStringLiteral("a b c"), TraceDetail::Probabilities);
        auto full = AttentionPipeline::run(config, QStringLiteral("a b c"), TraceDetail::Full);
        QVERIFY(light.ok() && full.ok());
        const WalkthroughData partial = WalkthroughData::build(light.value(), 1, 1);
        const WalkthroughData complete = WalkthroughData::build(full.value(), 1, 1);
        for (int n : {3, 4, 5}) {
            QVERIFY(partial.step(n).unavailable.isEmpty());
            QCOMPARE(partial.step(n).tables.size(), size_t(1));
            const Matrix& computed = partial.step(n).tables[0].values;
            const Matrix& kept = complete.step(n).tables[0].values;
            QCOMPARE(computed.rows(), Eigen::Index(3));
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) {
                    if (std::isinf(kept(i, j))) {
                        QCOMPARE(computed(i, j), kept(i, j));  // masked: -inf in both
                        continue;
                    }
                    const auto q = full->trace.qHead(1).row(i).cast<double>();
                    const auto k = full->trace.kHead(1).row(j).cast<double>();
                    const double divisor = n == 3 ? 1.0 : double(full->trace.scale);
                    const double bound = 2 * gammaOf(q.size()) * q.cwiseProduct(k).cwiseAbs().sum() / divisor +
                                         (n == 3 ? 0.0 : 2 * kUnitRoundoff * std::abs(kept(i, j)));
                    QVERIFY2(std::abs(computed(i, j) - kept(i, j)) <= bound,
                             qPrintable(QStringLiteral("step %1 (%2, %3)").arg(n).arg(i).arg(j)));
                }
        }
        QCOMPARE(partial.step(6).tables[0].values, light->trace.probabilities[1]);
        QVERIFY(partial.note.isEmpty());
    }

    void longInputsShowTheQuerysRowOnly()
    {
        // 600 tokens: 360,000 scores, over kWholeMatrixCells. The T x T steps hold query 7's row
        // of head 1, computed without the full trace, and the model says what it shows.
        RunSettings config;
        config.d_model = 8;
        config.num_heads = 2;
        QStringList words;
        for (int i = 0; i < 600; ++i)
            words.append(QStringLiteral("w%1").arg(i % 37));
        auto light = AttentionPipeline::run(config, words.join(u' '), TraceDetail::Probabilities);
        QVERIFY(light.ok());
        QCOMPARE(light->seqLen(), 600);
        const WalkthroughData walk = WalkthroughData::build(light.value(), 1, 7);
        QVERIFY2(walk.note.contains(QStringLiteral("row of query 7 only")), qPrintable(walk.note));
        for (int n : {3, 4, 5, 6}) {
            const WalkthroughTable& row = walk.step(n).tables[0];
            QCOMPARE(row.values.rows(), Eigen::Index(1));
            QCOMPARE(row.values.cols(), Eigen::Index(600));
            QCOMPARE(row.first_row, 7);
            QCOMPARE(row.highlighted_row, 0);
            QCOMPARE(row.row_labels.size(), 1);
        }
        QCOMPARE(RowVector(walk.step(6).tables[0].values.row(0)), RowVector(light->trace.probabilities[1].row(7)));
        // The raw row is q_7 · k_j: the products of the breakdown add up to it.
        const RowVector sums = walk.products.values.rowwise().sum().transpose();
        for (int j = 0; j < 600; ++j)
            QVERIFY(std::abs(sums(j) - walk.step(3).tables[0].values(0, j)) <=
                    twoSumsBound(walk.products.values.row(j)));  // float32 sums of 4 products
    }

    // The long route (one head kept): a head that was not kept shows the query's row of its
    // weights and the weighted values the pass that keeps every head shows, bit for bit, from its
    // query's block of rows alone: the head is not recomputed whole.
    void longRouteWalkthroughRecomputesTheQuerysBlockOnly()
    {
        RunSettings config;
        config.d_model = 16;
        config.num_heads = 4;
        config.causal = true;
        const std::optional<LongInputPasses> passes = longInputPasses(config, 700, 41, 0);
        QVERIFY(passes);
        QVERIFY(!passes->blocked.trace.keepsEveryHead());
        for (const auto& [head, query] : {std::pair{2, 0}, std::pair{1, 345}, std::pair{2, 699}, std::pair{0, 64}}) {
            const WalkthroughData want = WalkthroughData::build(passes->full, head, query);
            const WalkthroughData got = WalkthroughData::build(passes->blocked, head, query);
            for (int n : {6, 7}) {
                QCOMPARE(got.step(n).tables[0].values, want.step(n).tables[0].values);
                QCOMPARE(got.step(n).tables[0].row_labels, want.step(n).tables[0].row_labels);
            }
            QCOMPARE(got.step(6).tables[0].first_row, query);
        }
        QCOMPARE(passes->blocked.trace.recomputed->head, -1);  // no head recomputed whole
    }
};

REGISTER_TEST_SUITE(TestWalkthroughData, QCoreApplication)
#include "test_walkthrough_data.moc"
