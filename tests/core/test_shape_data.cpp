// The shape diagram's model: every tensor's shape, every weight's parameter count and every
// step's multiply-adds, checked against numbers worked out by hand.

#include "core/analysis/ShapeData.h"
#include "tests/support/TestSuite.h"
#include "tests/support/ToyAttention.h"

#include <QTest>

using namespace attn;
using Id = ShapeStep::Id;

class TestShapeData : public QObject {
    Q_OBJECT

private:
    static const ShapeStep& at(const ShapeData& model, Id id)
    {
        const ShapeStep* step = model.step(id);
        if (!step)
            qFatal("step %d missing", int(id));
        return *step;
    }

private slots:
    // "Attention Is All You Need" sizes with a batch: B = 32, T = 10, d_model = 512, h = 8.
    void classicExample()
    {
        ShapeConfig config;
        config.batch = 32;
        config.seq_len = 10;
        config.input_dim = 512;
        config.d_model = 512;
        config.num_heads = 8;
        config.output_dim = 512;
        const ShapeData model(config);

        QCOMPARE(at(model, Id::Input).shapeText(), QStringLiteral("(32, 10, 512)"));
        QCOMPARE(at(model, Id::Input).shapeNames(), QStringLiteral("(B, T, d_in)"));
        QCOMPARE(at(model, Id::Wq).shapeText(), QStringLiteral("(512, 512)"));
        for (Id id : {Id::Q, Id::K, Id::V})
            QCOMPARE(at(model, id).shapeText(), QStringLiteral("(32, 10, 512)"));
        for (Id id : {Id::QHeads, Id::KHeads, Id::VHeads, Id::HeadOutputs}) {
            QCOMPARE(at(model, id).shapeText(), QStringLiteral("(32, 8, 10, 64)"));
            QCOMPARE(at(model, id).head_axis, 1);
        }
        QCOMPARE(at(model, Id::QHeads).shapeNames(), QStringLiteral("(B, h, T, d_k)"));
        QCOMPARE(at(model, Id::Scores).shapeText(), QStringLiteral("(32, 8, 10, 10)"));
        QCOMPARE(at(model, Id::Softmax).shapeText(), QStringLiteral("(32, 8, 10, 10)"));
        QCOMPARE(at(model, Id::Concat).shapeText(), QStringLiteral("(32, 10, 512)"));
        QCOMPARE(at(model, Id::Wo).shapeText(), QStringLiteral("(512, 512)"));
        QCOMPARE(at(model, Id::Output).shapeText(), QStringLiteral("(32, 10, 512)"));
        QVERIFY(!model.step(Id::Masked));  // no mask, no mask step

        // Order of the tutorial: X, the three weights, Q K V, heads, scores, softmax, A V, concat, Wo, Y.
        QList<Id> order;
        for (const ShapeStep& step : model.steps())
            order.append(step.id);
        QCOMPARE(order,
                 (QList<Id>{Id::Input, Id::Wq, Id::Wk, Id::Wv, Id::Q, Id::K, Id::V, Id::QHeads, Id::KHeads, Id::VHeads,
                            Id::Scores, Id::Softmax, Id::HeadOutputs, Id::Concat, Id::Wo, Id::Output}));

        // Parameters: each of Wq, Wk, Wv, Wo is 512 x 512 + 512 bias = 262,656; four of them.
        for (Id id : {Id::Wq, Id::Wk, Id::Wv, Id::Wo})
            QCOMPARE(at(model, id).parameters, 262656);
        QCOMPARE(model.totalParameters(), 1050624);

        // Multiply-adds: each projection 32 * 10 * 512 * 512 = 83,886,080;
        // Q Kᵀ and A V each 32 * 8 * 10 * 10 * 64 = 1,638,400.
        for (Id id : {Id::Q, Id::K, Id::V, Id::Output})
            QCOMPARE(at(model, id).multiply_adds, 83886080);
        QCOMPARE(at(model, Id::Scores).multiply_adds, 1638400);
        QCOMPARE(at(model, Id::HeadOutputs).multiply_adds, 1638400);
        for (Id id : {Id::Input, Id::Wq, Id::QHeads, Id::Softmax, Id::Concat})
            QCOMPARE(at(model, id).multiply_adds, 0);
        QCOMPARE(model.totalMultiplyAdds(), 4 * 83886080LL + 2 * 1638400LL);  // 338,821,120
        QCOMPARE(model.totalFlops(), 677642240);
        QCOMPARE(ShapeData::formatCount(model.totalFlops()), QStringLiteral("677,642,240"));
        QCOMPARE(ShapeData::formatCompact(model.totalFlops()), QStringLiteral("677.6 M"));
        QCOMPARE(ShapeData::formatCompact(model.totalParameters()), QStringLiteral("1.051 M"));

        // Element-wise work: bias adds, the division by the scale, one exp per weight.
        QCOMPARE(at(model, Id::Q).elementwise, 32 * 10 * 512);
        QCOMPARE(at(model, Id::Scores).elementwise, 32 * 8 * 10 * 10);
        QCOMPARE(at(model, Id::Scores).formula, QStringLiteral("S = Q_h K_hᵀ / √d_k"));
    }

    // Cross-attention, T_q = 3 queries and T_kv = 5 keys, padded: K, V and the scores take T_kv,
    // everything after the weighted sum is per query again. Multiply-adds worked out by hand.
    void crossAttentionNamesBothLengths()
    {
        ShapeConfig config;
        config.batch = 2;
        config.seq_len = 3;
        config.kv_len = 5;
        config.input_dim = 8;
        config.d_model = 8;
        config.num_heads = 2;
        config.output_dim = 8;
        config.masked = true;  // padding
        const ShapeData model(config);

        QCOMPARE(at(model, Id::Input).shapeNames(), QStringLiteral("(B, T_q, d_in)"));
        QCOMPARE(at(model, Id::Q).shapeText(), QStringLiteral("(2, 3, 8)"));
        QCOMPARE(at(model, Id::K).shapeText(), QStringLiteral("(2, 5, 8)"));
        QCOMPARE(at(model, Id::V).shapeNames(), QStringLiteral("(B, T_kv, d_model)"));
        QCOMPARE(at(model, Id::K).formula, QStringLiteral("K = X_kv Wk + bk"));
        QCOMPARE(at(model, Id::QHeads).shapeText(), QStringLiteral("(2, 2, 3, 4)"));
        QCOMPARE(at(model, Id::KHeads).shapeText(), QStringLiteral("(2, 2, 5, 4)"));
        for (Id id : {Id::Scores, Id::Masked, Id::Softmax}) {
            QCOMPARE(at(model, id).shapeText(), QStringLiteral("(2, 2, 3, 5)"));
            QCOMPARE(at(model, id).shapeNames(), QStringLiteral("(B, h, T_q, T_kv)"));
        }
        QVERIFY(at(model, Id::Masked).formula.contains(QStringLiteral("padding")));
        QCOMPARE(at(model, Id::HeadOutputs).shapeText(), QStringLiteral("(2, 2, 3, 4)"));
        QCOMPARE(at(model, Id::Output).shapeText(), QStringLiteral("(2, 3, 8)"));

        // Q: B T_q d_in d_model = 2·3·8·8 = 384; K, V: 2·5·8·8 = 640 each; scores and A V:
        // B h T_q T_kv d_k = 2·2·3·5·4 = 240 each; output: 2·3·8·8 = 384.
        QCOMPARE(at(model, Id::Q).multiply_adds, 384);
        QCOMPARE(at(model, Id::K).multiply_adds, 640);
        QCOMPARE(at(model, Id::V).multiply_adds, 640);
        QCOMPARE(at(model, Id::Scores).multiply_adds, 240);
        QCOMPARE(at(model, Id::HeadOutputs).multiply_adds, 240);
        QCOMPARE(at(model, Id::Scores).cost_formula, QStringLiteral("B·h·T_q·T_kv·d_k"));
        QCOMPARE(model.totalMultiplyAdds(), 384 + 640 + 640 + 240 + 240 + 384);
    }

    // d_in != d_model, causal, no biases: the weights are (d_in x d_model), the mask step appears.
    void inputDimDiffersAndMask()
    {
        ShapeConfig config;
        config.batch = 2;
        config.seq_len = 7;
        config.input_dim = 300;
        config.d_model = 64;
        config.num_heads = 4;
        config.output_dim = 64;
        config.has_input_bias = false;
        config.has_output_bias = false;
        config.masked = true;
        config.causal = true;
        config.scale = 2.5;
        const ShapeData model(config);

        QCOMPARE(at(model, Id::Input).shapeText(), QStringLiteral("(2, 7, 300)"));
        QCOMPARE(at(model, Id::Wk).shapeText(), QStringLiteral("(300, 64)"));
        QCOMPARE(at(model, Id::Wk).shapeNames(), QStringLiteral("(d_in, d_model)"));
        QCOMPARE(at(model, Id::K).shapeText(), QStringLiteral("(2, 7, 64)"));
        QCOMPARE(at(model, Id::VHeads).shapeText(), QStringLiteral("(2, 4, 7, 16)"));
        QCOMPARE(at(model, Id::Masked).shapeText(), QStringLiteral("(2, 4, 7, 7)"));
        QVERIFY(at(model, Id::Masked).formula.contains(QStringLiteral("causal")));
        QCOMPARE(at(model, Id::Scores).formula, QStringLiteral("S = Q_h K_hᵀ / 2.5"));
        QCOMPARE(at(model, Id::Q).formula, QStringLiteral("Q = X Wq"));
        // The mask sits between the scores and the softmax.
        const auto& steps = model.steps();
        const auto index = [&](Id id) {
            return std::find_if(steps.begin(), steps.end(), [id](const ShapeStep& s) { return s.id == id; }) -
                   steps.begin();
        };
        QCOMPARE(index(Id::Masked), index(Id::Scores) + 1);
        QCOMPARE(index(Id::Softmax), index(Id::Masked) + 1);

        // Parameters: 3 x 300 x 64 + 64 x 64 = 57,600 + 4,096.
        QCOMPARE(at(model, Id::Wq).parameters, 19200);
        QCOMPARE(at(model, Id::Wo).parameters, 4096);
        QCOMPARE(model.totalParameters(), 61696);
        // Multiply-adds: 3 x 2*7*300*64 + 2 x 2*4*7*7*16 + 2*7*64*64 = 806,400 + 12,544 + 57,344.
        QCOMPARE(at(model, Id::V).multiply_adds, 268800);
        QCOMPARE(at(model, Id::Scores).multiply_adds, 6272);
        QCOMPARE(at(model, Id::Output).multiply_adds, 57344);
        QCOMPARE(model.totalMultiplyAdds(), 876288);
        QCOMPARE(model.totalFlops(), 1752576);
        QCOMPARE(at(model, Id::Q).elementwise, 0);  // no bias
    }

    // Without an output projection the output is the concatenation: no Wo box, d_out = d_model.
    void noOutputProjection()
    {
        ShapeConfig config;
        config.batch = 1;
        config.seq_len = 3;
        config.input_dim = 4;
        config.d_model = 6;
        config.num_heads = 2;
        config.output_dim = 6;
        config.has_output_projection = false;
        config.has_output_bias = false;
        const ShapeData model(config);
        QVERIFY(!model.step(Id::Wo));
        QCOMPARE(at(model, Id::Output).shapeText(), QStringLiteral("(1, 3, 6)"));
        QCOMPARE(at(model, Id::Output).multiply_adds, 0);
        QVERIFY(at(model, Id::Output).formula.contains(QStringLiteral("no output projection")));
        QCOMPARE(model.totalParameters(), 3 * (4 * 6 + 6));  // 90
        // 3 projections 3*4*6 = 72 each; Q Kᵀ and A V 2*3*3*3 = 54 each.
        QCOMPARE(model.totalMultiplyAdds(), 3 * 72 + 2 * 54);
    }

    // The batch is drawn only: totals scale with it, parameters do not.
    void batchScalesCostNotParameters()
    {
        ShapeConfig config;
        config.seq_len = 5;
        config.input_dim = config.d_model = config.output_dim = 8;
        config.num_heads = 2;
        const ShapeData one(config);
        config.batch = 7;
        const ShapeData seven(config);
        QCOMPARE(seven.totalParameters(), one.totalParameters());
        QCOMPARE(seven.totalMultiplyAdds(), 7 * one.totalMultiplyAdds());
    }

    // From a computed result: dimensions, biases read off the parameter count, and the totals
    // agree with the weights' own count.
    void fromResult()
    {
        const AttentionResult random = test::sentenceResult(16, 4, 12, true);
        const ShapeConfig config = ShapeConfig::fromResult(random, 3);
        QCOMPARE(config.batch, 3);
        QCOMPARE(config.seq_len, random.seqLen());
        QCOMPARE(config.input_dim, 12);
        QCOMPARE(config.d_model, 16);
        QCOMPARE(config.num_heads, 4);
        QCOMPARE(config.headDim(), 4);
        QCOMPARE(config.output_dim, 16);
        QVERIFY(config.has_input_bias);  // PyTorch-style random init has biases
        QVERIFY(config.has_output_bias);
        QVERIFY(config.masked && config.causal);
        QCOMPARE(config.effectiveScale(), 2.0);
        QCOMPARE(ShapeData(config).totalParameters(), random.parameter_count);
        QVERIFY(config.positional);
        QCOMPARE(ShapeData(config).step(Id::Input)->formula, QStringLiteral("X = embeddings + positions"));

        const AttentionResult toy = test::toyResult();
        const ShapeConfig toy_config = ShapeConfig::fromResult(toy, 1);
        QVERIFY(!toy_config.has_input_bias);
        QVERIFY(!toy_config.has_output_projection);
        QVERIFY(!toy_config.masked);
        QVERIFY(!toy_config.positional);
        QCOMPARE(toy_config.effectiveScale(), 1.0);
        const ShapeData toy_model(toy_config);
        QCOMPARE(toy_model.totalParameters(), toy.parameter_count);  // 3 x 4 x 3 = 36
        QCOMPARE(toy_model.totalParameters(), 36);
        QCOMPARE(toy_model.step(Id::Scores)->formula, QStringLiteral("S = Q_h K_hᵀ / 1"));
        QCOMPARE(toy_model.step(Id::Output)->shapeText(), QStringLiteral("(1, 3, 3)"));
    }

    void formatting()
    {
        QCOMPARE(ShapeData::formatCount(0), QStringLiteral("0"));
        QCOMPARE(ShapeData::formatCount(999), QStringLiteral("999"));
        QCOMPARE(ShapeData::formatCount(1000), QStringLiteral("1,000"));
        QCOMPARE(ShapeData::formatCount(-1234567), QStringLiteral("-1,234,567"));
        QCOMPARE(ShapeData::formatCompact(950), QStringLiteral("950"));
        QCOMPARE(ShapeData::formatCompact(12345), QStringLiteral("12.35 k"));
        QCOMPARE(ShapeData::formatCompact(2500000000LL), QStringLiteral("2.5 G"));
    }
};

REGISTER_TEST_SUITE(TestShapeData, QCoreApplication)
#include "test_shape_data.moc"
