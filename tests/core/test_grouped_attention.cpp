// Grouped-query attention: fewer key/value heads than query heads, against a plain float64 loop,
// and the shapes every builder of grouped weights checks.
#include "core/attention/AttentionEngine.h"
#include "tests/support/EngineReference.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

using namespace attn;
using namespace attn::test;
using namespace attn::testing;

class TestGroupedAttention : public QObject {
    Q_OBJECT

private slots:
    void groupedQueryAttentionEqualsAPlainLoop_data()
    {
        QTest::addColumn<int>("kv_heads");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<bool>("biases");
        for (int kv_heads : {4, 2, 1})  // of 4 heads: plain multi-head, two groups, multi-query
            for (bool causal : {false, true})
                for (bool biases : {true, false})
                    QTest::addRow("kv_heads=%d%s%s", kv_heads, causal ? " causal" : "", biases ? "" : " no bias")
                        << kv_heads << causal << biases;
    }
    void groupedQueryAttentionEqualsAPlainLoop()
    {
        QFETCH(int, kv_heads);
        QFETCH(bool, causal);
        QFETCH(bool, biases);
        const int heads = 4, d_k = 8, d_in = 24, d_out = 20, seq_len = 70;  // 70 rows: two query blocks
        const GroupedParts parts = groupedParts(d_in, heads, kv_heads, d_k, d_out, biases, 31);
        const AttentionWeights w = parts.weights();
        QCOMPARE(w.kvHeads(), kv_heads);
        QCOMPARE(w.dModel(), heads * d_k);
        QCOMPARE(w.kvDim(), kv_heads * d_k);
        QCOMPARE(Matrix(w.wk()), parts.wk);
        QCOMPARE(Matrix(w.wv()), parts.wv);

        const Matrix x = randomMatrix(seq_len, d_in, 32);
        AttentionOptions options;
        options.causal = causal;
        const AttentionTrace trace = AttentionEngine::forward(x, w, options).value();
        QCOMPARE(trace.num_heads, heads);
        QCOMPARE(trace.num_kv_heads, kv_heads);
        QCOMPARE(trace.k.cols(), Eigen::Index(kv_heads * d_k));
        QCOMPARE(trace.q.cols(), Eigen::Index(heads * d_k));

        const ReferencePass expected = referenceGroupedPass(x, parts, causal);
        // float32 engine against the float64 loop: within one float32 pass's error bounds
        // (tests/support/Float32Bounds.h), far below the 1e-2 that a wrong key/value head or a
        // missing bias moves them.
        std::vector<DoubleMatrix> larger;
        for (int h = 0; h < heads; ++h)
            larger.push_back(
                DoubleMatrix(expected.weights[size_t(h)]).cwiseMax(trace.probabilities[size_t(h)].cast<double>()));
        const DoubleMatrix no_difference = DoubleMatrix::Zero(x.rows(), x.cols());
        const AttentionLayerBounds bounds =
            attentionLayerBounds(w, {x, no_difference, trace.q, trace.k, larger}, {}, 1.0 / std::sqrt(double(d_k)), 1);
        const AttentionOutputBounds output_bounds =
            attentionOutputBounds(w, bounds, larger, trace.v, trace.concat, 0.0, 1);
        for (int h = 0; h < heads; ++h) {
            const QString beyond =
                beyondBound("weights", trace.probabilities[size_t(h)], DoubleMatrix(expected.weights[size_t(h)]),
                            bounds.probabilities[size_t(h)]);
            QVERIFY2(beyond.isEmpty(), qPrintable(QStringLiteral("head %1: %2").arg(h).arg(beyond)));
            // The trace's per-head views are the key/value head the head attended with.
            QCOMPARE(Matrix(trace.kHead(h)), Matrix(trace.k.middleCols(h / (heads / kv_heads) * d_k, d_k)));
        }
        const QString concat = beyondBound("concat", trace.concat, DoubleMatrix(expected.concat), output_bounds.concat);
        QVERIFY2(concat.isEmpty(), qPrintable(concat));
        const QString output = beyondBound("output", trace.output, DoubleMatrix(expected.output), output_bounds.output);
        QVERIFY2(output.isEmpty(), qPrintable(output));
    }

    void ungroupedHeadsAreThePlainLayerToTheBit()
    {
        // fromParts with num_kv_heads = num_heads, fromFused and random(..., num_kv_heads, ...) with
        // num_kv_heads = num_heads are the plain multi-head layer: the same bits.
        const AttentionWeights plain = randomWeights(24, 32, 4, 5);
        QCOMPARE(plain.num_kv_heads, 0);
        const AttentionWeights same_random = AttentionWeights::random(24, 32, 4, 4, 5).value();
        QCOMPARE(same_random.in_proj, plain.in_proj);
        QCOMPARE(same_random.out_bias, plain.out_bias);
        const AttentionWeights parts =
            AttentionWeights::fromParts(4, 4, plain.wq(), plain.wk(), plain.wv(), plain.in_bias.segment(0, 32),
                                        plain.in_bias.segment(32, 32), plain.in_bias.segment(64, 32), plain.out_proj,
                                        plain.out_bias)
                .value();
        QCOMPARE(parts.num_kv_heads, 0);
        QCOMPARE(parts.in_proj, plain.in_proj);
        QCOMPARE(parts.in_bias, plain.in_bias);
        const AttentionWeights fused =
            AttentionWeights::fromFused(4, 0, plain.in_proj, plain.in_bias, plain.out_proj, plain.out_bias).value();
        const Matrix x = randomMatrix(20, 24, 6);
        const AttentionTrace a = AttentionEngine::forward(x, plain).value();
        for (const AttentionWeights* w : {&parts, &fused}) {
            const AttentionTrace b = AttentionEngine::forward(x, *w).value();
            QCOMPARE(b.num_kv_heads, 4);
            QCOMPARE(b.probabilities, a.probabilities);
            QCOMPARE(b.output, a.output);
        }
    }

    void fusedGroupedWeightsAreTheirParts()
    {
        // GPT-2-like loaders hand in [Wq | Wk | Wv] as it is stored; moved in, it is not copied.
        const GroupedParts p = groupedParts(16, 4, 2, 4, 16, true, 41);
        Matrix in_proj(16, 16 + 2 * 8);  // (d_in, d_model + 2 * kv_dim)
        in_proj << p.wq, p.wk, p.wv;
        RowVector in_bias(16 + 2 * 8);
        in_bias << p.bq, p.bk, p.bv;
        const float* storage = in_proj.data();
        const AttentionWeights fused =
            AttentionWeights::fromFused(4, 2, std::move(in_proj), std::move(in_bias), p.wo, p.bo).value();
        QCOMPARE(fused.in_proj.data(), storage);
        QCOMPARE(fused.kvHeads(), 2);
        QCOMPARE(Matrix(fused.wq()), p.wq);
        QCOMPARE(Matrix(fused.wk()), p.wk);
        QCOMPARE(Matrix(fused.wv()), p.wv);
        const Matrix x = randomMatrix(9, 16, 42);
        const AttentionTrace a = AttentionEngine::forward(x, fused).value();
        const AttentionTrace b = AttentionEngine::forward(x, p.weights()).value();
        QCOMPARE(a.output, b.output);
        // The grouped random layer has the grouped shapes and nn.Linear's bounds.
        const AttentionWeights random = AttentionWeights::random(100, 64, 8, 2, 9).value();
        QCOMPARE(random.in_proj.cols(), Eigen::Index(64 + 2 * 16));
        QCOMPARE(random.in_bias.size(), Eigen::Index(64 + 2 * 16));
        QCOMPARE(random.kvDim(), 16);
        QVERIFY(random.in_proj.cwiseAbs().maxCoeff() <= 0.1f);  // 1/sqrt(100)
        QVERIFY(random.validate().ok());
    }

    void groupedWeightsRefuseWhatCannotWork_data()
    {
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("kv_heads");
        QTest::addColumn<int>("kv_cols");
        QTest::addColumn<int>("bias_k");
        QTest::addColumn<QString>("expected");
        // d_in 8, Wq (8, 16): head_dim 4 for 4 heads.
        QTest::newRow("kv heads do not divide the heads")
            << 4 << 3 << 12 << 0 << "(3) must divide the number of heads (4)";
        QTest::newRow("more kv heads than heads") << 4 << 8 << 32 << 0 << "(8) must divide the number of heads (4)";
        QTest::newRow("negative kv heads") << 4 << -2 << 8 << 0 << "key/value heads must be a positive integer";
        QTest::newRow("Wk too wide for 2 kv heads") << 4 << 2 << 12 << 0 << "must have the shape 8x8";
        QTest::newRow("bk the width of bq") << 4 << 2 << 8 << 16 << "must have 16, 8 and 8 entries";
        QTest::newRow("heads do not divide Wq") << 3 << 1 << 5 << 0 << "not divisible by 3 heads";
    }
    void groupedWeightsRefuseWhatCannotWork()
    {
        QFETCH(int, heads);
        QFETCH(int, kv_heads);
        QFETCH(int, kv_cols);
        QFETCH(int, bias_k);
        QFETCH(QString, expected);
        const Matrix wq = randomMatrix(8, 16, 1);
        const Matrix wk = randomMatrix(8, kv_cols, 2);
        const RowVector bq = bias_k ? RowVector::Ones(16) : RowVector();
        const RowVector bk = bias_k ? RowVector::Ones(bias_k) : RowVector();
        const RowVector bv = bias_k ? RowVector::Ones(kv_cols) : RowVector();
        const auto parts = AttentionWeights::fromParts(heads, kv_heads, wq, wk, wk, bq, bk, bv, {}, {});
        QVERIFY(!parts.ok());
        QVERIFY2(parts.error().contains(expected), qPrintable(parts.error()));
    }

    void groupedShapesAreCheckedWhereverWeightsAreBuilt()
    {
        // Side by side, the widths follow from the head counts: (4 + 2 * 2) * head_dim columns.
        const auto fused = AttentionWeights::fromFused(4, 2, randomMatrix(8, 30, 3), {}, {}, {});
        QVERIFY(!fused.ok());
        QVERIFY2(fused.error().contains("(4 + 2 * 2) * head_dim columns, got 30"), qPrintable(fused.error()));
        const auto bias = AttentionWeights::fromFused(4, 2, randomMatrix(8, 32, 3), RowVector::Ones(16), {}, {});
        QVERIFY2(bias.error().contains("the input bias has 16 entries, expected 32"), qPrintable(bias.error()));
        // Weights edited out of shape are refused by validate() and by the engine.
        AttentionWeights edited = AttentionWeights::random(8, 16, 4, 2, 3).value();
        edited.num_kv_heads = 3;
        QVERIFY2(edited.validate().error().contains("(3) must divide"), qPrintable(edited.validate().error()));
        const auto pass = AttentionEngine::forward(randomMatrix(3, 8, 4), edited);
        QCOMPARE(pass.error(), edited.validate().error());
        QVERIFY(!AttentionWeights::random(8, 16, 4, 3, 0).ok());
        QVERIFY(!AttentionWeights::checkDimensions(8, 16, 4, 3).ok());
        QVERIFY(AttentionWeights::checkDimensions(8, 16, 4, 2).ok());
    }
};

REGISTER_TEST_SUITE(TestGroupedAttention, QCoreApplication)
#include "test_grouped_attention.moc"
