// What the views show of the Llama family and GPT-NeoX: the shape diagram's grouped-query keys
// and values, their repeat and the rotary step, the sliding-window mask, and the walkthrough's
// rotation step, made from the tiny fixtures' layers (tests/fixtures/models/).
//
// The rotation is checked by an independent route: x_i' = x_i cos(p θ_i) - x_(i+R/2) sin(p θ_i)
// computed here in double from the Q and K the layer kept before the rotation and the result's θ_i
// (RotaryEmbedding::inverseFrequencies, checked against transformers in test_rotary_embedding; with
// the default scaling, 1 / rope_theta^(2i/R) here), within the float32 rounding of the engine's turn
// (its angle a float32 product, its cosines and sines rounded to float32, a c - b s rounded twice).
#include "core/analysis/ShapeData.h"
#include "core/analysis/WalkthroughData.h"
#include "core/model/TransformerModel.h"
#include "core/pipeline/ModelLayerResult.h"

#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>

using namespace attn;
using namespace attn::testing;
using Id = ShapeStep::Id;

namespace {

const std::vector<int> kIds = {5, 17, 63, 2, 40, 11, 29, 71, 8, 33};

std::unique_ptr<TransformerModel> loadFixture(const char* name)
{
    auto model = TransformerModel::load(modelFixture(QString::fromLatin1(name)));
    if (!model)
        qFatal("%s: %s", name, qPrintable(model.error()));
    return std::move(model).value();
}

// Layer `layer` of a run of kIds as the single-layer views get it (selected or remade).
AttentionResult layerResult(const TransformerModel& model, int selected, int layer)
{
    auto run = model.forward(kIds, selected);
    if (!run)
        qFatal("%s", qPrintable(run.error()));
    QStringList texts;
    for (int id : kIds)
        texts.append(QString::number(id));
    auto result = ModelLayerResult::make(model, QStringLiteral("fixture"), *run, texts, layer, TraceDetail::Full);
    if (!result)
        qFatal("%s", qPrintable(result.error()));
    return std::move(result).value();
}

const ShapeStep& at(const ShapeData& model, Id id)
{
    const ShapeStep* step = model.step(id);
    if (!step)
        qFatal("step %d missing", int(id));
    return *step;
}

}  // namespace

class TestRotaryViews : public QObject {
    Q_OBJECT

private slots:
    // SmolLM2-135M's layer at T = 32: 9 query heads, 3 key/value heads of 64, no biases.
    void shapesOfGroupedQueryAttention()
    {
        ShapeConfig config;
        config.seq_len = 32;
        config.input_dim = config.d_model = config.output_dim = 576;
        config.num_heads = 9;
        config.num_kv_heads = 3;
        config.rotary_dim = 64;
        config.has_input_bias = config.has_output_bias = false;
        config.masked = config.causal = true;
        const ShapeData model(config);
        QCOMPARE(at(model, Id::Wq).shapeText(), QStringLiteral("(576, 576)"));
        QCOMPARE(at(model, Id::Wk).shapeText(), QStringLiteral("(576, 192)"));
        QCOMPARE(at(model, Id::Wv).shapeNames(), QStringLiteral("(d_in, d_kv)"));
        QCOMPARE(at(model, Id::K).shapeText(), QStringLiteral("(1, 32, 192)"));
        QCOMPARE(at(model, Id::KHeads).shapeText(), QStringLiteral("(1, 3, 32, 64)"));
        QCOMPARE(at(model, Id::KHeads).shapeNames(), QStringLiteral("(B, h_kv, T, d_k)"));
        QCOMPARE(at(model, Id::QRotated).shapeText(), QStringLiteral("(1, 9, 32, 64)"));
        QCOMPARE(at(model, Id::KRotated).shapeText(), QStringLiteral("(1, 3, 32, 64)"));
        QCOMPARE(at(model, Id::KRepeated).shapeText(), QStringLiteral("(1, 9, 32, 64)"));
        QCOMPARE(at(model, Id::VRepeated).shapeNames(), QStringLiteral("(B, h, T, d_k)"));
        QVERIFY(at(model, Id::KRepeated).formula.contains(QStringLiteral("each kv head × 3")));
        // The attention parameters of one SmolLM2 block: 2 x 576² + 2 x 576 x 192.
        QCOMPARE(model.totalParameters(), std::int64_t(884736));
        QCOMPARE(at(model, Id::K).multiply_adds, std::int64_t(32) * 576 * 192);

        QList<Id> order;
        for (const ShapeStep& step : model.steps())
            order.append(step.id);
        const qsizetype heads = order.indexOf(Id::VHeads);
        QCOMPARE(order.mid(heads, 6),
                 (QList<Id>{Id::VHeads, Id::QRotated, Id::KRotated, Id::KRepeated, Id::VRepeated, Id::Scores}));
    }

    void partialRotaryAndNoGroups()
    {
        ShapeConfig config;
        config.seq_len = 8;
        config.input_dim = config.d_model = config.output_dim = 512;
        config.num_heads = 8;
        config.rotary_dim = 16;  // Pythia: rotary_pct 0.25 of 64
        const ShapeData model(config);
        QVERIFY(at(model, Id::QRotated).formula.contains(QStringLiteral("first R = 16 of d_k = 64")));
        QVERIFY(!model.step(Id::KRepeated));
        QCOMPARE(at(model, Id::KRotated).shapeText(), QStringLiteral("(1, 8, 8, 64)"));
    }

    // The fixtures' layers as the views read them: grouped heads, the rotary width, the window.
    void shapeConfigFromModelLayers()
    {
        const auto llama = loadFixture("llama-tiny");  // 4 heads, 2 kv heads, width 32
        const ShapeConfig grouped = ShapeConfig::fromResult(layerResult(*llama, 0, 1), 1);
        QCOMPARE(grouped.kvHeads(), std::int64_t(2));
        QCOMPARE(grouped.rotary_dim, std::int64_t(8));
        QVERIFY(!grouped.has_input_bias && !grouped.has_output_bias);
        QCOMPARE(ShapeData(grouped).totalParameters(), llama->weights().layers[1].attention.parameterCount());

        const auto qwen = loadFixture("qwen2-tiny");  // q, k, v biases, o_proj without
        const ShapeConfig biased = ShapeConfig::fromResult(layerResult(*qwen, 1, 1), 1);
        QVERIFY(biased.has_input_bias);
        QVERIFY(!biased.has_output_bias);
        QCOMPARE(biased.kvHeads(), std::int64_t(2));

        const auto mistral = loadFixture("mistral-tiny");  // sliding window 4, 10 tokens
        const ShapeConfig windowed = ShapeConfig::fromResult(layerResult(*mistral, 0, 0), 1);
        QCOMPARE(windowed.sliding_window, std::int64_t(4));
        QVERIFY(windowed.windowed());
        QCOMPARE(at(ShapeData(windowed), Id::Masked).formula,
                 QStringLiteral("S[i, j] = −∞ for j > i or j ≤ i − W (causal, sliding window W = 4)"));
    }

    void walkthroughRotationStep_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<int>("selected");
        QTest::addColumn<int>("layer");
        QTest::addColumn<int>("head");
        QTest::addColumn<int>("query");
        QTest::newRow("llama-tiny selected layer") << QStringLiteral("llama-tiny") << 1 << 1 << 3 << 7;
        QTest::newRow("llama-tiny other layer") << QStringLiteral("llama-tiny") << 1 << 0 << 1 << 9;
        QTest::newRow("pythia-tiny partial") << QStringLiteral("pythia-tiny") << 0 << 0 << 2 << 6;
        QTest::newRow("qwen2-tiny") << QStringLiteral("qwen2-tiny") << 0 << 0 << 5 << 4;
    }

    void walkthroughRotationStep()
    {
        QFETCH(QString, fixture);
        QFETCH(int, selected);
        QFETCH(int, layer);
        QFETCH(int, head);
        QFETCH(int, query);
        const auto model = loadFixture(qPrintable(fixture));
        const ModelConfig& c = model->config();
        const AttentionResult result = layerResult(*model, selected, layer);
        const WalkthroughData walk = WalkthroughData::build(result, head, query);
        const WalkthroughStep& step = walk.rotation;
        QCOMPARE(step.label, QStringLiteral("2b"));
        QVERIFY2(step.unavailable.isEmpty(), qPrintable(step.unavailable));
        QCOMPARE(int(step.tables.size()), 3);

        // q and k at the query's position, before and after, against the rotation done here.
        const Matrix& pair = step.tables[0].values;  // (4, d_k)
        const int d = c.headDim();
        const int half = c.rotary_dim / 2;
        QCOMPARE(pair.cols(), Eigen::Index(d));
        for (int row : {0, 2}) {
            for (int i = 0; i < d; ++i) {
                double expected = pair(row, i);
                double bound = 0.0;  // features past the rotary ones pass through unchanged
                if (i < c.rotary_dim) {
                    const int j = i < half ? i + half : i - half;
                    const double theta = result.inverse_frequencies[size_t(i % half)];
                    const double angle = query * theta;
                    expected = i < half ? pair(row, i) * std::cos(angle) - pair(row, j) * std::sin(angle)
                                        : pair(row, i) * std::cos(angle) + pair(row, j) * std::sin(angle);
                    // The engine's angle p θ is a float32 product (u angle), its cosine and sine
                    // rounded to float32 (u): tables within u (1 + angle); then two roundings.
                    bound =
                        (std::abs(pair(row, i)) + std::abs(pair(row, j))) * (kUnitRoundoff * (1 + angle) + gammaOf(2));
                }
                QVERIFY2(std::abs(pair(row + 1, i) - expected) <= bound,
                         qPrintable(QStringLiteral("row %1 feature %2: %3, expected %4")
                                        .arg(row + 1)
                                        .arg(i)
                                        .arg(pair(row + 1, i))
                                        .arg(expected)));
            }
        }
        // After the rotation: the rows step 2 shows; K before it has the head's kv head.
        QCOMPARE(Matrix(pair.row(1)), Matrix(walk.step(2).tables[0].values.row(query)));
        QCOMPARE(step.tables[1].values.rows(), Eigen::Index(kIds.size()));
        QCOMPARE(step.tables[1].highlighted_row, query);
        const Matrix& angles = step.tables[2].values;  // (R/2, 4)
        QCOMPARE(angles.rows(), Eigen::Index(half));
        for (int i = 0; i < half; ++i) {
            // θ_i = 1 / powf(theta, 2i/R): the exponent rounded (u, times ln theta 2i/R in the
            // power), powf within 1 ulp (2 u) and the division (u).
            const double exponent = 2.0 * i / c.rotary_dim;
            const double theta = std::pow(c.rope_theta, -exponent);
            const double relative = 3 * kUnitRoundoff + kUnitRoundoff * exponent * std::log(c.rope_theta);
            if (c.rope_scaling.type == RopeScaling::Type::Default)
                QVERIFY(std::abs(angles(i, 0) - theta) <= theta * relative / (1 - relative));
            // p θ_i a float32 product (u); its cosine from cosf, within 1 ulp of a value up to 1 (2 u).
            QVERIFY(std::abs(angles(i, 1) - query * double(angles(i, 0))) <= kUnitRoundoff * std::abs(angles(i, 1)));
            QVERIFY(std::abs(angles(i, 2) - std::cos(double(angles(i, 1)))) <= 2 * kUnitRoundoff);
        }
        QVERIFY(walk.step(2).tables[1].title.contains(QStringLiteral("after rotation")));
    }

    void walkthroughMaskOfTheSlidingWindow()
    {
        const auto mistral = loadFixture("mistral-tiny");
        const WalkthroughData walk = WalkthroughData::build(layerResult(*mistral, 0, 0), 1, 7);
        QVERIFY(walk.step(5).formula.contains(QStringLiteral("sliding window 4")));
        const Matrix& masked = walk.step(5).tables[0].values;  // (T, T)
        for (int key = 0; key < int(kIds.size()); ++key)
            QCOMPARE(std::isinf(masked(7, key)), key > 7 || key <= 3);  // query 7 sees keys 4 .. 7
        QVERIFY(walk.rotation.tables.size() == 3);

        const auto gpt2 = loadFixture("gpt2-tiny");  // learned positions: no rotation step
        auto run = gpt2->forward({464, 3797, 3332}, 0);
        QVERIFY(run);
        auto result = ModelLayerResult::make(*gpt2, QStringLiteral("gpt2"), *run, {"a", "b", "c"}, 0);
        QVERIFY(result);
        QVERIFY(WalkthroughData::build(*result, 0, 1).rotation.tables.empty());
    }
};

REGISTER_TEST_SUITE(TestRotaryViews, QCoreApplication)
#include "test_rotary_views.moc"
