// Whole models against Hugging Face transformers: the folders of tests/fixtures/models/
// (tiny random checkpoints in the hub's layouts) with the values reference_models.py computed for
// them in float64. Each case runs the real loader and forward pass on the folder as it is.
//
// Two kinds of check (docs/testing.md, "Tolerances"): the whole run against float64 at the
// command-line contract's limit, 2e-5 (docs/command-line.md), and the selected layer alone, fed
// the reference's own float64 input, against float64 within float32 error bounds derived from
// that layer's numbers (tests/support/Float32Bounds.h), which hold for any order of the sums.
#include "core/attention/AttentionEngine.h"
#include "core/model/RotaryEmbedding.h"
#include "core/model/TransformerModel.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace attn;
using namespace attn::testing;

namespace {

QJsonObject readExpected(const QString& dir)
{
    QFile file(dir + QStringLiteral("/expected.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

std::vector<int> intList(const QJsonArray& array)
{
    std::vector<int> values;
    for (const QJsonValue& v : array)
        values.push_back(v.toInt());
    return values;
}

MatrixD matrixOf(const QJsonArray& rows)
{
    const int cols = rows.isEmpty() ? 0 : int(rows[0].toArray().size());
    MatrixD m(rows.size(), cols);
    for (int r = 0; r < rows.size(); ++r)
        for (int c = 0; c < cols; ++c)
            m(r, c) = rows[r].toArray()[c].toDouble();
    return m;
}

double maxAbsDifference(const ConstMatrixRef& actual, const MatrixD& expected)
{
    if (actual.rows() != expected.rows() || actual.cols() != expected.cols())
        return INFINITY;
    return (actual.cast<double>() - expected).cwiseAbs().maxCoeff();
}

}  // namespace

class TestModelAgreement : public QObject {
    Q_OBJECT

private slots:
    void agreesWithTransformers_data();
    void agreesWithTransformers();
    void layerAgreesWithinFloat32Bounds_data();
    void layerAgreesWithinFloat32Bounds();
};

void TestModelAgreement::agreesWithTransformers_data()
{
    QTest::addColumn<QString>("folder");
    for (const char* name : {"gpt2-tiny", "gpt2-prefixed", "bert-tiny", "distilbert-tiny", "llama-tiny", "qwen2-tiny",
                             "mistral-tiny", "llama-biased", "pythia-tiny", "neox-sequential"})
        QTest::newRow(name) << fixturesPath("models/") + QLatin1String(name);
}

void TestModelAgreement::agreesWithTransformers()
{
    QFETCH(QString, folder);
    const QJsonObject expected = readExpected(folder);
    QVERIFY2(!expected.isEmpty(), qPrintable(folder + "/expected.json is missing"));

    auto model = TransformerModel::load(folder);
    QVERIFY2(model, qPrintable(model.error()));
    const ModelConfig& config = (*model)->config();
    const QJsonObject summary = expected["model"].toObject();
    QCOMPARE(config.model_type, summary["model_type"].toString());
    QCOMPARE(config.num_layers, summary["num_layers"].toInt());
    QCOMPARE(config.num_heads, summary["num_heads"].toInt());
    QCOMPARE(config.num_kv_heads, summary["num_kv_heads"].toInt());
    QCOMPARE(config.headDim(), summary["head_dim"].toInt());
    QCOMPARE(config.hidden_size, summary["hidden_size"].toInt());
    QCOMPARE(config.vocab_size, summary["vocab_size"].toInt());
    QCOMPARE(config.causal, summary["causal"].toBool());

    const std::vector<int> ids = intList(expected["token_ids"].toArray());
    const QJsonObject layer_inputs = expected["layer_inputs"].toObject();
    const int selected = layer_inputs["layer"].toInt();
    auto run = (*model)->forward(ids, selected);
    QVERIFY2(run, qPrintable(run.error()));

    // Attention (L, H, T, T): the contract's 2e-5 absolute; causal upper triangles exactly 0.
    const QJsonArray attention = expected["attention"].toArray();
    QCOMPARE(run->numLayers(), int(attention.size()));
    double worst_attention = 0;
    for (int l = 0; l < attention.size(); ++l) {
        const QJsonArray heads = attention[l].toArray();
        QCOMPARE(run->attention.numHeads(), int(heads.size()));
        for (int h = 0; h < heads.size(); ++h) {
            const Matrix weights = run->attention.head(l, h);
            worst_attention = std::max(worst_attention, maxAbsDifference(weights, matrixOf(heads[h].toArray())));
            if (config.causal)
                for (int i = 0; i < weights.rows(); ++i)
                    for (int j = i + 1; j < weights.cols(); ++j)
                        QCOMPARE(weights(i, j), 0.0f);
        }
    }
    QVERIFY2(worst_attention <= kContractTolerance,
             qPrintable(QStringLiteral("attention off by %1").arg(worst_attention)));

    // last_hidden_state: the contract's 2e-5 of its largest absolute value.
    const MatrixD hidden = matrixOf(expected["last_hidden_state"].toArray());
    const double hidden_error = maxAbsDifference(run->last_hidden_state, hidden) / hidden.cwiseAbs().maxCoeff();
    QVERIFY2(hidden_error <= kContractTolerance,
             qPrintable(QStringLiteral("hidden state off by %1 (relative)").arg(hidden_error)));
    qInfo("attention max abs error %.3g, last_hidden_state max relative error %.3g", worst_attention, hidden_error);

    // The selected layer's attention input and Q, K, V (rotary models: after the rotation, and
    // Q, K before it too): as the hidden state, the contract's 2e-5 of each matrix's largest value (they pass
    // through the same float32 layers before it).
    QCOMPARE(run->num_kv_heads, config.num_kv_heads);
    QCOMPARE(config.hasRotaryPositions(), layer_inputs.contains("q_before_rotation"));
    if (!config.hasRotaryPositions())
        QVERIFY(run->q_before_rotation.size() == 0);
    double worst_layer = 0;
    for (const char* key : {"input", "q", "k", "v", "q_before_rotation", "k_before_rotation"}) {
        if (!layer_inputs.contains(QLatin1String(key)))
            continue;
        const MatrixD want = matrixOf(layer_inputs[QLatin1String(key)].toArray());
        const QLatin1String name(key);
        const Matrix& got = name == "input"               ? run->layer_input
                            : name == "q"                 ? run->layer_trace.q
                            : name == "k"                 ? run->layer_trace.k
                            : name == "v"                 ? run->layer_trace.v
                            : name == "q_before_rotation" ? run->q_before_rotation
                                                          : run->k_before_rotation;
        const double error = maxAbsDifference(got, want) / want.cwiseAbs().maxCoeff();
        worst_layer = std::max(worst_layer, error);
        QVERIFY2(error <= kContractTolerance,
                 qPrintable(QStringLiteral("layer %1 %2 off by %3").arg(selected).arg(key).arg(error)));
    }

    // Top-5 of the head: the same ids in the same order (the fixtures keep consecutive logits
    // at least top5_min_gap = 1.3e-4 apart, far above float32 error), logits within 1e-4.
    const QJsonArray top5 = expected["top5"].toArray();
    std::vector<int> positions;
    for (const QJsonValue& entry : top5)
        positions.push_back(entry["position"].toInt());
    QVERIFY((*model)->hasPredictionHead());
    auto predictions = (*model)->predict(*run, positions);
    QVERIFY2(predictions, qPrintable(predictions.error()));
    QCOMPARE(int(predictions->size()), int(top5.size()));
    double worst_logit = 0;
    for (int i = 0; i < top5.size(); ++i) {
        const TokenPrediction& got = (*predictions)[size_t(i)];
        QCOMPARE(got.ids, intList(top5[i]["ids"].toArray()));
        const QJsonArray logits = top5[i]["logits"].toArray();
        for (int r = 0; r < logits.size(); ++r) {
            const double error =
                std::abs(got.logits[size_t(r)] - logits[r].toDouble()) / std::max(1.0, std::abs(logits[r].toDouble()));
            worst_logit = std::max(worst_logit, error);
            QVERIFY2(error <= kContractTolerance,
                     qPrintable(QStringLiteral("position %1 rank %2: logit %3, expected %4")
                                    .arg(got.position)
                                    .arg(r)
                                    .arg(got.logits[size_t(r)])
                                    .arg(logits[r].toDouble())));
        }
    }
    qInfo("layer input, Q, K, V max relative error %.3g, top-5 logits %.3g", worst_layer, worst_logit);
}

void TestModelAgreement::layerAgreesWithinFloat32Bounds_data()
{
    agreesWithTransformers_data();
}

// The selected layer's attention, computed by the engine from the reference's own float64 input
// (rounded to float32 once: |dx| = |x32 - x64|), against the reference's float64 Q, K, V and
// probabilities, within the float32 bounds of one pass (Float32Bounds.h). The cosines and sines:
// each side computes the frequencies by the same float32 formula, each within 4 u of the exact
// (a power and a division, llama3's smoothing), so their angles p f lie within 8 u p f apart
// (the products p f rounded alike), and each side's cosine and sine within an ulp (u) of the
// exact: the tables lie within 2 u + 8 u p f apart, p f below the last position times the largest
// frequency.
void TestModelAgreement::layerAgreesWithinFloat32Bounds()
{
    QFETCH(QString, folder);
    const QJsonObject expected = readExpected(folder);
    auto model = TransformerModel::load(folder);
    QVERIFY2(model, qPrintable(model.error()));
    const ModelConfig& config = (*model)->config();
    const QJsonObject layer_inputs = expected["layer_inputs"].toObject();
    const int selected = layer_inputs["layer"].toInt();
    const MatrixD x64 = matrixOf(layer_inputs["input"].toArray());
    const Matrix x = x64.cast<float>();
    const DoubleMatrix dx = x.cast<double>() - x64;
    const Eigen::Index tokens = x.rows();

    AttentionOptions options;
    options.detail = TraceDetail::Probabilities;
    Matrix q_before, k_before;
    const RotaryEmbedding rotary =
        config.hasRotaryPositions() ? RotaryEmbedding(config, int(tokens)) : RotaryEmbedding();
    if (config.hasRotaryPositions()) {
        options.causal = true;
        options.sliding_window = config.sliding_window;
        options.scale.mode = ScaleSetting::Mode::Sqrt;
        options.rotate_positions = [&](MatrixRef projected, int heads, int head_dim, int first_position,
                                       RotatedProjection which) {
            (which == RotatedProjection::Queries ? q_before : k_before) = projected;
            rotary.apply(projected, heads, head_dim, first_position);
        };
    } else {
        options.causal = config.causal;
        options.scale.mode = config.scale_attention ? ScaleSetting::Mode::Sqrt : ScaleSetting::Mode::None;
    }
    const AttentionWeights& weights = (*model)->weights().layers[size_t(selected)].attention;
    auto trace = AttentionEngine::forward(x, weights, options);
    QVERIFY2(trace, qPrintable(trace.error()));

    const QJsonArray reference_heads = expected["attention"].toArray()[selected].toArray();
    std::vector<DoubleMatrix> reference_probabilities, larger;
    for (int h = 0; h < weights.num_heads; ++h) {
        reference_probabilities.push_back(matrixOf(reference_heads[h].toArray()));
        larger.push_back(reference_probabilities.back().cwiseMax(trace->probabilities[size_t(h)].cast<double>()));
    }
    double largest_frequency = 0.0;
    if (config.hasRotaryPositions())
        for (float f : RotaryEmbedding::inverseFrequencies(config))
            largest_frequency = std::max(largest_frequency, double(f));
    const double table_error = 2 * kUnitRoundoff + 8 * kUnitRoundoff * double(tokens - 1) * largest_frequency;
    const int rotary_dim = config.hasRotaryPositions() ? config.rotary_dim : 0;
    const double scale =
        options.scale.mode == ScaleSetting::Mode::Sqrt ? 1.0 / std::sqrt(double(weights.headDim())) : 1.0;
    const AttentionLayerBounds bounds = attentionLayerBounds(weights, {x, dx, trace->q, trace->k, larger},
                                                             {rotary_dim, rotary_dim / 2, table_error}, scale, 1);

    double worst = 0.0, share = 0.0;
    const auto check = [&](const char* name, const Matrix& got, const DoubleMatrix& bound) {
        const DoubleMatrix want = matrixOf(layer_inputs[QLatin1String(name)].toArray());
        const QString beyond = beyondBound(name, got, want, bound, &share);
        worst = std::max(worst, share);
        return beyond;
    };
    for (const auto& [name, got, bound] :
         {std::tuple<const char*, const Matrix*, const DoubleMatrix*>{"q", &trace->q, &bounds.q},
          {"k", &trace->k, &bounds.k},
          {"v", &trace->v, &bounds.v},
          {"q_before_rotation", &q_before, &bounds.q_before_rotation},
          {"k_before_rotation", &k_before, &bounds.k_before_rotation}}) {
        if (!layer_inputs.contains(QLatin1String(name)))
            continue;
        const QString beyond = check(name, *got, *bound);
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }
    for (int h = 0; h < weights.num_heads; ++h) {
        const QString beyond = beyondBound("attention", trace->probabilities[size_t(h)], reference_probabilities[size_t(h)],
                                           bounds.probabilities[size_t(h)], &share);
        worst = std::max(worst, share);
        QVERIFY2(beyond.isEmpty(), qPrintable(QStringLiteral("head %1: %2").arg(h).arg(beyond)));
    }
    qInfo("layer %d from the reference's input: worst error %.3g of its bound", selected, worst);
}

REGISTER_TEST_SUITE(TestModelAgreement, QCoreApplication)
#include "test_model_agreement.moc"
