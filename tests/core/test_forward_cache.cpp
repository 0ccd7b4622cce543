// The cache for live typing (TransformerModel::forward with a ForwardCache, built on
// AttentionEngine::forwardAppending): a pass that extends the cached tokens computes only the new
// ones, and gives what a whole pass gives.
//
// The new rows are products of fewer rows than in the whole pass, and the kernels may sum in
// another order for another number of rows (core/ops/LinearColumns.h), on every processor in
// another way; everything else is the same arithmetic. So each attention layer (Q, K, V before
// and after the rotation, the probabilities, the weighted values, the output) is held to the
// float32 error bounds of tests/support/Float32Bounds.h, computed from the layer's own numbers
// and its inputs' measured difference; the residual stream between the layers (layer inputs,
// last hidden state) to the command-line contract's tolerance (compareRuns).
#include "core/attention/AttentionEngine.h"
#include "core/model/TransformerModel.h"

#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>
#include <numeric>
#include <tuple>

using namespace attn;
using namespace attn::testing;

namespace {

// 24 ids in the GPT-2 vocabulary; gpt2-tiny has 64 positions.
const std::vector<int> kSentence = {464, 3797, 3332, 319,  262, 14477, 13,  632, 373, 257, 922,   3797,
                                    11,  290,  340,  3332, 612, 329,   257, 890, 640, 13,  50256, 50};

std::vector<int> firstTokens(int count)
{
    return {kSentence.begin(), kSentence.begin() + count};
}

std::unique_ptr<TransformerModel> loadFixture(const char* name)
{
    auto model = TransformerModel::load(modelFixture(QString::fromLatin1(name)));
    if (!model)
        qFatal("%s: %s", name, qPrintable(model.error()));
    return std::move(model).value();
}

// The whole pass, without a cache.
ModelRun wholeRun(const TransformerModel& model, const std::vector<int>& ids, int layer)
{
    auto run = model.forward(ids, layer);
    if (!run)
        qFatal("%s", qPrintable(run.error()));
    return std::move(run).value();
}

// The largest |a - b| over the largest |b| (at least 1), as the contract measures the hidden state.
double relativeDifference(const Matrix& a, const Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numeric_limits<double>::infinity();
    if (a.size() == 0)
        return 0.0;  // both empty: Q and K before rotation of a model without rotary positions
    const double scale = std::max(1.0f, b.cwiseAbs().maxCoeff());
    return (a - b).cwiseAbs().maxCoeff() / scale;
}

// The largest |a - b| / bound of the checks so far (1 is the bound), for the suite's summary.
struct WorstSeen {
    double residual = 0.0;  // layer inputs and last hidden state, relative to the largest value
    double layer = 0.0;     // Q, K, V, probabilities, weighted values, output: share of the bound
};
WorstSeen g_worst;

std::vector<DoubleMatrix> largerProbabilities(const ModelRun& cached, const ModelRun& whole, int l)
{
    std::vector<DoubleMatrix> larger;
    for (int h = 0; h < whole.attention.numHeads(); ++h)
        larger.push_back(cached.attention.head(l, h).cast<double>().cwiseAbs().cwiseMax(
            whole.attention.head(l, h).cast<double>().cwiseAbs()));
    return larger;
}

// The bounds of layer `l` of two float32 passes over inputs that differ by the measured dX
// (Float32Bounds.h): the rotary fixtures' cosines and sines are the same float32 table in both.
AttentionLayerBounds layerBounds(const TransformerModel& model, const ModelRun& cached, const ModelRun& whole, int l)
{
    const ModelRun layer_run = whole.selected_layer == l ? ModelRun() : wholeRun(model, whole.token_ids, l);
    const AttentionTrace& trace = whole.selected_layer == l ? whole.layer_trace : layer_run.layer_trace;
    const AttentionWeights& weights = model.weights().layers[size_t(l)].attention;
    const Matrix& x = whole.layer_inputs[size_t(l)];
    const DoubleMatrix dx = (cached.layer_inputs[size_t(l)] - x).cast<double>();
    const int rotary_dim = model.config().rotary_dim;
    const double scale = model.config().scale_attention ? 1.0 / std::sqrt(double(weights.headDim())) : 1.0;
    return attentionLayerBounds(weights, {x, dx, trace.q, trace.k, largerProbabilities(cached, whole, l)},
                                {rotary_dim, rotary_dim / 2, 0.0}, scale, 2);
}

// The selected layer's weighted values (concat = P V per head) and output (concat Wo + bo), from
// the measured differences of P and V and of concat (Float32Bounds.h: weightedValuesBound, and
// productBound of the output projection over the measured difference of concat).
QString weightedValuesBeyondBounds(const TransformerModel& model, const ModelRun& cached, const ModelRun& whole)
{
    const int l = whole.selected_layer;
    const AttentionWeights& weights = model.weights().layers[size_t(l)].attention;
    const AttentionTrace& a = cached.layer_trace;
    const AttentionTrace& b = whole.layer_trace;
    const int heads = weights.num_heads, d = weights.headDim(), group = heads / weights.kvHeads();
    DoubleMatrix concat_bound(b.q.rows(), heads * d);
    for (int h = 0; h < heads; ++h) {
        const DoubleMatrix p_a = cached.attention.head(l, h).cast<double>(),
                           p_b = whole.attention.head(l, h).cast<double>();
        const DoubleMatrix v_a = a.v.middleCols((h / group) * d, d).cast<double>();
        const DoubleMatrix v_b = b.v.middleCols((h / group) * d, d).cast<double>();
        concat_bound.middleCols(h * d, d) = weightedValuesBound(p_a.cwiseAbs().cwiseMax(p_b.cwiseAbs()), p_a - p_b,
                                                                v_a.cwiseAbs().cwiseMax(v_b.cwiseAbs()), v_a - v_b, 2);
    }
    double worst = 0.0;
    QString beyond = beyondBound("concat", a.concat, b.concat, concat_bound, &worst);
    g_worst.layer = std::max(g_worst.layer, worst);
    if (!beyond.isEmpty() || !weights.hasOutputProjection())
        return beyond;
    const DoubleMatrix output_bound =
        productBound(b.concat, Matrix(a.concat - b.concat), weights.out_proj, weights.out_bias, 2).bound;
    beyond = beyondBound("output", a.output, b.output, output_bound, &worst);
    g_worst.layer = std::max(g_worst.layer, worst);
    return beyond;
}

// Where `cached` and `whole` differ by more than allowed, in words; empty when they agree.
// Layer inputs and the last hidden state: both passes are runs the command-line contract holds
// within 2e-5 of float64, relative to the largest value (docs/command-line.md), so they lie within
// twice that of each other. Each attention layer: the float32 bounds of its inputs' measured
// difference (layerBounds).
QString compareRuns(const TransformerModel& model, const ModelRun& cached, const ModelRun& whole)
{
    constexpr double kContractTolerance = 2e-5;
    if (cached.token_ids != whole.token_ids || cached.selected_layer != whole.selected_layer)
        return QStringLiteral("different tokens or selected layer");
    if (cached.layer_trace.query_offset != 0 || cached.layer_trace.queryLength() != whole.seqLen())
        return QStringLiteral("the selected layer's trace does not cover every query");
    const std::pair<const char*, std::pair<const Matrix*, const Matrix*>> residuals[] = {
        {"last_hidden_state", {&cached.last_hidden_state, &whole.last_hidden_state}},
        {"layer_input", {&cached.layer_input, &whole.layer_input}},
    };
    for (int l = 0; l < whole.numLayers(); ++l) {
        const double d = relativeDifference(cached.layer_inputs[size_t(l)], whole.layer_inputs[size_t(l)]);
        g_worst.residual = std::max(g_worst.residual, d);
        if (d > 2 * kContractTolerance)
            return QStringLiteral("layer %1 input differs by %2").arg(l).arg(d);
    }
    for (const auto& [name, pair] : residuals) {
        const double d = relativeDifference(*pair.first, *pair.second);
        g_worst.residual = std::max(g_worst.residual, d);
        if (d > 2 * kContractTolerance)
            return QStringLiteral("%1 differs by %2").arg(QLatin1String(name)).arg(d);
    }
    const int selected = whole.selected_layer;
    for (int l = 0; l < whole.numLayers(); ++l) {
        const AttentionLayerBounds bounds = layerBounds(model, cached, whole, l);
        double worst = 0.0;
        QString beyond;
        if (l == selected) {
            const std::tuple<const char*, const Matrix*, const Matrix*, const DoubleMatrix*> parts[] = {
                {"q", &cached.layer_trace.q, &whole.layer_trace.q, &bounds.q},
                {"k", &cached.layer_trace.k, &whole.layer_trace.k, &bounds.k},
                {"v", &cached.layer_trace.v, &whole.layer_trace.v, &bounds.v},
                {"q before rotation", &cached.q_before_rotation, &whole.q_before_rotation, &bounds.q_before_rotation},
                {"k before rotation", &cached.k_before_rotation, &whole.k_before_rotation, &bounds.k_before_rotation},
            };
            for (const auto& [name, a, b, bound] : parts) {
                if (b->size() == 0 && a->size() == 0)
                    continue;  // Q and K before rotation of a model without rotary positions
                if (beyond.isEmpty())
                    beyond = beyondBound(name, *a, *b, *bound, &worst);
                g_worst.layer = std::max(g_worst.layer, worst);
            }
        }
        for (int h = 0; h < whole.attention.numHeads() && beyond.isEmpty(); ++h) {
            beyond = beyondBound("attention", cached.attention.head(l, h), whole.attention.head(l, h),
                                 bounds.probabilities[size_t(h)], &worst);
            g_worst.layer = std::max(g_worst.layer, worst);
            if (!beyond.isEmpty())
                beyond = QStringLiteral("head %1: %2").arg(h).arg(beyond);
        }
        if (!beyond.isEmpty())
            return QStringLiteral("layer %1 %2").arg(l).arg(beyond);
    }
    return weightedValuesBeyondBounds(model, cached, whole);
}

// 20 ids below 72, the smallest vocabulary of the rotary fixtures (llama-biased).
const std::vector<int> kRotarySentence = {5, 17, 63, 2, 40, 11, 29, 71, 8, 33, 50, 14, 3, 66, 21, 9, 45, 58, 1, 27};

std::vector<int> firstRotaryTokens(int count)
{
    return {kRotarySentence.begin(), kRotarySentence.begin() + count};
}

// A position rotation in the manner of RoPE (pairs of features turned by position * frequency),
// for the engine-level checks of the cache's positions.
void rotateToy(MatrixRef projected, int heads, int head_dim, int first_position, RotatedProjection)
{
    for (Eigen::Index row = 0; row < projected.rows(); ++row)
        for (int h = 0; h < heads; ++h)
            for (int j = 0; j + 1 < head_dim; j += 2) {
                const double angle = (first_position + row) * std::pow(100.0, -double(j) / head_dim);
                float& a = projected(row, h * head_dim + j);
                float& b = projected(row, h * head_dim + j + 1);
                const float x = a, y = b;
                a = float(x * std::cos(angle) - y * std::sin(angle));
                b = float(x * std::sin(angle) + y * std::cos(angle));
            }
}

Matrix randomRows(int rows, int cols, std::uint64_t seed)
{
    Matrix x(rows, cols);
    std::uint64_t state = seed;
    for (float& v : x.reshaped()) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = float(double(state >> 40) / double(1 << 24) * 2.0 - 1.0);
    }
    return x;
}

}  // namespace

class TestForwardCache : public QObject {
    Q_OBJECT

private slots:
    void cleanupTestCase();
    void extendingEqualsWholePass_data();
    void extendingEqualsWholePass();
    void typingTokenByToken();
    void cachedKeysAreReused();
    void changedTokenInTheMiddle();
    void shorterInput();
    void sameInputIsTheCachedRun();
    void otherSelectedLayer();
    void nonCausalModelRecomputes();
    void memoryIsTwoLayersOfKeysAndValues();
    void rotaryExtendingEqualsWholePass_data();
    void rotaryExtendingEqualsWholePass();
    void rotaryTypingAndEditing_data();
    void rotaryTypingAndEditing();
    void groupedKeysAreKeptPerKeyValueHead();
    void engineRotatesNewKeysFromTheCachedLength();
    void engineRefusesACacheOfOtherWeights();
};

void TestForwardCache::cleanupTestCase()
{
    qInfo("worst: residual stream %.3g of its largest value (allowed %.3g), attention layers %.3g of their bounds",
          g_worst.residual, 4e-5, g_worst.layer);
}

void TestForwardCache::extendingEqualsWholePass_data()
{
    QTest::addColumn<int>("prefix");
    QTest::addColumn<int>("total");
    QTest::addColumn<int>("layer");
    QTest::newRow("1 + 1") << 1 << 2 << 0;
    QTest::newRow("5 + 1") << 5 << 6 << 1;
    QTest::newRow("6 + 7") << 6 << 13 << 0;
    QTest::newRow("23 + 1") << 23 << 24 << 1;
    QTest::newRow("2 + 22") << 2 << 24 << 1;
}

void TestForwardCache::extendingEqualsWholePass()
{
    QFETCH(int, prefix);
    QFETCH(int, total);
    QFETCH(int, layer);
    const auto model = loadFixture("gpt2-tiny");
    ForwardCache cache;
    QVERIFY(model->forward(firstTokens(prefix), layer, cache));
    QCOMPARE(cache.length(), prefix);
    auto extended = model->forward(firstTokens(total), layer, cache);
    QVERIFY2(extended, qPrintable(extended.error()));
    QCOMPARE(cache.length(), total);
    QCOMPARE(cache.layers.front().length(), total);
    const QString difference = compareRuns(*model, **extended, wholeRun(*model, firstTokens(total), layer));
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
}

void TestForwardCache::typingTokenByToken()
{
    const auto model = loadFixture("gpt2-tiny");
    ForwardCache cache;
    for (int count = 1; count <= int(kSentence.size()); ++count) {
        auto run = model->forward(firstTokens(count), 1, cache);
        QVERIFY2(run, qPrintable(run.error()));
        const QString difference = compareRuns(*model, **run, wholeRun(*model, firstTokens(count), 1));
        QVERIFY2(difference.isEmpty(), qPrintable(QStringLiteral("T = %1: %2").arg(count).arg(difference)));
    }
}

// The prefix's keys and values come from the cache, not from a new pass over the prefix: keys
// changed in the cache change the new token's attention, and the prefix's rows stay the cached ones.
void TestForwardCache::cachedKeysAreReused()
{
    const auto model = loadFixture("gpt2-tiny");
    ForwardCache cache;
    auto before = model->forward(firstTokens(8), 0, cache);
    QVERIFY(before);
    for (KeyValueCache& layer : cache.layers)
        layer.k.row(0) *= 3.0f;
    auto after = model->forward(firstTokens(9), 0, cache);
    QVERIFY(after);
    const ModelRun whole = wholeRun(*model, firstTokens(9), 0);
    QVERIFY(std::abs((*after)->attention.at(0, 0, 8, 0) - whole.attention.at(0, 0, 8, 0)) > 1e-3f);
    for (int query = 0; query < 8; ++query)
        for (int key = 0; key <= query; ++key)
            QCOMPARE((*after)->attention.at(1, 2, query, key), (*before)->attention.at(1, 2, query, key));
}

void TestForwardCache::changedTokenInTheMiddle()
{
    const auto model = loadFixture("gpt2-tiny");
    ForwardCache cache;
    QVERIFY(model->forward(firstTokens(16), 1, cache));
    for (int changed : {0, 7, 15}) {
        std::vector<int> edited = firstTokens(18);
        edited[size_t(changed)] = 42;
        auto run = model->forward(edited, 1, cache);
        QVERIFY(run);
        const QString difference = compareRuns(*model, **run, wholeRun(*model, edited, 1));
        QVERIFY2(difference.isEmpty(), qPrintable(QStringLiteral("token %1: %2").arg(changed).arg(difference)));
        QVERIFY(model->forward(firstTokens(16), 1, cache));  // back to the sentence
    }
}

void TestForwardCache::shorterInput()
{
    const auto model = loadFixture("gpt2-tiny");
    ForwardCache cache;
    QVERIFY(model->forward(firstTokens(20), 0, cache));
    for (int count : {19, 12, 1}) {
        auto run = model->forward(firstTokens(count), 0, cache);
        QVERIFY(run);
        QCOMPARE(cache.length(), count);
        QCOMPARE(cache.layers.back().length(), count);
        const QString difference = compareRuns(*model, **run, wholeRun(*model, firstTokens(count), 0));
        QVERIFY2(difference.isEmpty(), qPrintable(QStringLiteral("T = %1: %2").arg(count).arg(difference)));
    }
}

void TestForwardCache::sameInputIsTheCachedRun()
{
    const auto model = loadFixture("gpt2-tiny");
    ForwardCache cache;
    auto first = model->forward(firstTokens(10), 1, cache);
    auto again = model->forward(firstTokens(10), 1, cache);
    QVERIFY(first && again);
    QCOMPARE(again->get(), first->get());
}

void TestForwardCache::otherSelectedLayer()
{
    const auto model = loadFixture("gpt2-tiny");
    ForwardCache cache;
    QVERIFY(model->forward(firstTokens(10), 0, cache));
    auto run = model->forward(firstTokens(11), 1, cache);
    QVERIFY(run);
    QCOMPARE((*run)->selected_layer, 1);
    const QString difference = compareRuns(*model, **run, wholeRun(*model, firstTokens(11), 1));
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
}

void TestForwardCache::nonCausalModelRecomputes()
{
    const auto model = loadFixture("bert-tiny");
    const std::vector<int> ids = {101, 7592, 1010, 2026, 3899, 2003, 10140, 102};
    ForwardCache cache;
    QVERIFY(model->forward({ids.begin(), ids.end() - 1}, 0, cache));
    auto run = model->forward(ids, 0, cache);
    QVERIFY(run);
    QVERIFY(cache.layers.empty() && !cache.run);
    const ModelRun whole = wholeRun(*model, ids, 0);
    QCOMPARE((*run)->last_hidden_state, whole.last_hidden_state);  // the same pass, bit for bit
    QCOMPARE((*run)->attention.head(1, 1), whole.attention.head(1, 1));
}

// 2 * L * T * C floats (gpt2-tiny: L = 2, C = 32), following the input's length both ways. For
// GPT-2 small at T = 1024 the same formula gives 2 * 12 * 1024 * 768 * 4 bytes = 75.5 MB.
void TestForwardCache::memoryIsTwoLayersOfKeysAndValues()
{
    const auto model = loadFixture("gpt2-tiny");
    const ModelConfig& c = model->config();
    ForwardCache cache;
    for (int count : {24, 9}) {
        QVERIFY(model->forward(firstTokens(count), 0, cache));
        QCOMPARE(cache.bytes(), std::int64_t(2) * c.num_layers * count * c.hidden_size * std::int64_t(sizeof(float)));
    }
    cache.clear();
    QCOMPARE(cache.bytes(), std::int64_t(0));
}

// The rotary decoders (Llama family, GPT-NeoX): the cached keys are after the rotation, so the new
// tokens are rotated from the cached length on; grouped-query fixtures keep num_kv_heads heads;
// mistral-tiny's sliding window of 4 masks cached keys too.
void TestForwardCache::rotaryExtendingEqualsWholePass_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<int>("prefix");
    QTest::addColumn<int>("total");
    QTest::addColumn<int>("layer");
    for (const char* fixture :
         {"llama-tiny", "llama-biased", "qwen2-tiny", "mistral-tiny", "pythia-tiny", "neox-sequential"})
        for (auto [prefix, total, layer] : {std::tuple{1, 2, 0}, {3, 4, 1}, {5, 12, 0}, {2, 20, 1}, {19, 20, 0}})
            QTest::addRow("%s %d + %d", fixture, prefix, total - prefix)
                << QString::fromLatin1(fixture) << prefix << total << layer;
}

void TestForwardCache::rotaryExtendingEqualsWholePass()
{
    QFETCH(QString, fixture);
    QFETCH(int, prefix);
    QFETCH(int, total);
    QFETCH(int, layer);
    const auto model = loadFixture(qPrintable(fixture));
    ForwardCache cache;
    QVERIFY(model->forward(firstRotaryTokens(prefix), layer, cache));
    QCOMPARE(cache.length(), prefix);
    auto extended = model->forward(firstRotaryTokens(total), layer, cache);
    QVERIFY2(extended, qPrintable(extended.error()));
    QCOMPARE(cache.length(), total);
    QCOMPARE(cache.layers.back().length(), total);  // computed through the cache, not whole
    const QString difference = compareRuns(*model, **extended, wholeRun(*model, firstRotaryTokens(total), layer));
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
}

void TestForwardCache::rotaryTypingAndEditing_data()
{
    QTest::addColumn<QString>("fixture");
    for (const char* fixture : {"llama-tiny", "qwen2-tiny", "mistral-tiny", "pythia-tiny"})
        QTest::newRow(fixture) << QString::fromLatin1(fixture);
}

// Token by token to the end, then a token changed mid-sentence: the pass after the change is
// computed from the changed token on and still equals a whole pass.
void TestForwardCache::rotaryTypingAndEditing()
{
    QFETCH(QString, fixture);
    const auto model = loadFixture(qPrintable(fixture));
    ForwardCache cache;
    for (int count = 1; count <= int(kRotarySentence.size()); ++count) {
        auto run = model->forward(firstRotaryTokens(count), 1, cache);
        QVERIFY2(run, qPrintable(run.error()));
        const QString difference = compareRuns(*model, **run, wholeRun(*model, firstRotaryTokens(count), 1));
        QVERIFY2(difference.isEmpty(), qPrintable(QStringLiteral("T = %1: %2").arg(count).arg(difference)));
    }
    for (int changed : {0, 6, 13, 19}) {
        std::vector<int> edited = kRotarySentence;
        edited[size_t(changed)] = 42;
        edited.push_back(7);
        auto run = model->forward(edited, 1, cache);
        QVERIFY(run);
        const QString difference = compareRuns(*model, **run, wholeRun(*model, edited, 1));
        QVERIFY2(difference.isEmpty(), qPrintable(QStringLiteral("token %1: %2").arg(changed).arg(difference)));
        QVERIFY(model->forward(kRotarySentence, 1, cache));  // back to the sentence
    }
}

// Grouped-query attention caches the key/value heads, not the query heads: 2 L T kv_dim floats
// (llama-tiny: 2 kv heads of 4, kv_dim 16 of hidden 32).
void TestForwardCache::groupedKeysAreKeptPerKeyValueHead()
{
    const auto model = loadFixture("llama-tiny");
    const ModelConfig& c = model->config();
    QCOMPARE(c.kvDim(), 16);
    ForwardCache cache;
    QVERIFY(model->forward(firstRotaryTokens(11), 0, cache));
    QCOMPARE(cache.layers.front().k.cols(), 16);
    QCOMPARE(cache.bytes(), std::int64_t(2) * c.num_layers * 11 * c.kvDim() * std::int64_t(sizeof(float)));
}

// The engine with grouped-query weights (4 query heads, 2 key/value heads) and a position rotation:
// keys rotated from the cached length on, the new rows equal to a whole pass's last rows.
void TestForwardCache::engineRotatesNewKeysFromTheCachedLength()
{
    auto weights = AttentionWeights::random(16, 16, 4, 2, 11);
    QVERIFY(weights);
    AttentionOptions options;
    options.causal = true;
    options.detail = TraceDetail::Probabilities;
    options.rotate_positions = rotateToy;
    const Matrix x = randomRows(9, 16, 5);  // (T, input_dim)
    auto whole = AttentionEngine::forward(x, *weights, options);
    QVERIFY(whole);

    KeyValueCache cache;
    auto head = AttentionEngine::forwardAppending(x.topRows(6), *weights, options, cache);
    auto tail = AttentionEngine::forwardAppending(x.bottomRows(3), *weights, options, cache);
    QVERIFY(head && tail);
    QCOMPARE(tail->query_offset, 6);
    QCOMPARE(cache.length(), 9);
    QCOMPARE(cache.k.cols(), 8);  // kv_dim = 2 heads x head_dim 4
    // Both passes' float32 bounds over the same input (Float32Bounds.h); rotateToy turns
    // neighbouring features by the same double angles in both.
    std::vector<DoubleMatrix> larger;
    for (int h = 0; h < 4; ++h) {
        DoubleMatrix p = whole->probabilities[size_t(h)].cast<double>();
        p.bottomRows(3) = p.bottomRows(3).cwiseMax(tail->probabilities[size_t(h)].cast<double>());
        larger.push_back(std::move(p));
    }
    const DoubleMatrix no_difference = DoubleMatrix::Zero(x.rows(), x.cols());
    const AttentionLayerBounds bounds =
        attentionLayerBounds(*weights, {x, no_difference, whole->q, whole->k, larger}, {4, 1, 0.0}, 0.5, 2);
    QVERIFY2(beyondBound("k", cache.k, whole->k, bounds.k).isEmpty(),
             qPrintable(beyondBound("k", cache.k, whole->k, bounds.k)));
    QVERIFY2(beyondBound("v", cache.v, whole->v, bounds.v).isEmpty(),
             qPrintable(beyondBound("v", cache.v, whole->v, bounds.v)));
    DoubleMatrix concat_bound(3, 16);
    for (int h = 0; h < 4; ++h) {
        const Matrix p_whole = whole->probabilities[size_t(h)].bottomRows(3);
        const QString beyond =
            beyondBound("weights", tail->probabilities[size_t(h)], p_whole, bounds.probabilities[size_t(h)].bottomRows(3));
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
        const DoubleMatrix v_whole = whole->v.middleCols((h / 2) * 4, 4).cast<double>();
        const DoubleMatrix v_cache = cache.v.middleCols((h / 2) * 4, 4).cast<double>();
        concat_bound.middleCols(h * 4, 4) =
            weightedValuesBound(larger[size_t(h)].bottomRows(3), (tail->probabilities[size_t(h)] - p_whole).cast<double>(),
                                v_whole.cwiseAbs().cwiseMax(v_cache.cwiseAbs()), v_cache - v_whole, 2);
    }
    const Matrix concat_whole = whole->concat.bottomRows(3), output_whole = whole->output.bottomRows(3);
    QVERIFY(beyondBound("concat", tail->concat, concat_whole, concat_bound).isEmpty());
    const DoubleMatrix output_bound =
        productBound(concat_whole, Matrix(tail->concat - concat_whole), weights->out_proj, weights->out_bias, 2).bound;
    QVERIFY2(beyondBound("output", tail->output, output_whole, output_bound).isEmpty(),
             qPrintable(beyondBound("output", tail->output, output_whole, output_bound)));
    QVERIFY(tail->isMasked(0, 7) && !tail->isMasked(0, 6));  // new query 0 is position 6
}

void TestForwardCache::engineRefusesACacheOfOtherWeights()
{
    auto weights = AttentionWeights::random(16, 16, 4, 11);
    QVERIFY(weights);
    KeyValueCache cache;
    cache.k = Matrix::Zero(3, 8);
    cache.v = Matrix::Zero(3, 8);
    auto trace = AttentionEngine::forwardAppending(randomRows(1, 16, 2), *weights, {}, cache);
    QVERIFY(!trace);
    QVERIFY2(trace.error().contains(QLatin1String("do not fit")), qPrintable(trace.error()));
    QCOMPARE(cache.length(), 3);
}

REGISTER_TEST_SUITE(TestForwardCache, QCoreApplication)
#include "test_forward_cache.moc"
