// The cache for live typing (TransformerModel::forward with a ForwardCache, built on
// AttentionEngine::forwardAppending): a pass that extends the cached tokens computes only the new
// ones, and gives what a whole pass gives.
//
// The attention weights and what they reach (each head's weighted values, the output projection)
// are checked against float32 error bounds derived below from the layer's own numbers. The other
// matrices (hidden states, Q, K, V) are checked within 1e-6 of their largest value: the new rows
// are products of fewer rows than in the whole pass, and the kernels may sum in another order for
// another number of rows (core/ops/LinearColumns.h); everything else is the same arithmetic.
#include "core/attention/AttentionEngine.h"
#include "core/model/TransformerModel.h"

#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>
#include <numeric>
#include <tuple>

using namespace attn;
using namespace attn::testing;

namespace {

constexpr float kTolerance = 1e-6f;

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

double relativeDifference(const Matrix& a, const Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numeric_limits<double>::infinity();
    if (a.size() == 0)
        return 0.0;  // both empty: Q and K before rotation of a model without rotary positions
    const double scale = std::max(1.0f, a.cwiseAbs().maxCoeff());
    return (a - b).cwiseAbs().maxCoeff() / scale;
}

// float32's unit roundoff u, and Higham's gamma_n = n u / (1 - n u): a sum of n terms (products,
// a bias) computed in float32 in any order lies within gamma_n * sum |terms| of the exact sum. Two
// passes that sum in different orders therefore differ by at most gamma_n times the sum of both
// passes' |terms|, plus what their different inputs make of the exact sums.
constexpr double kUnitRoundoff = 0x1p-24;

double gammaOf(Eigen::Index n)
{
    const double nu = double(n) * kUnitRoundoff;
    return nu / (1.0 - nu);
}

using DoubleMatrix = Eigen::MatrixXd;

// |X| |W| + |b| (each row's sums of |terms|) and the bound on how far the cached and the whole
// pass's X W + b lie apart, elementwise, when their inputs differ by dx: |dx| |W| from the
// inputs, and each pass's rounding.
std::pair<DoubleMatrix, DoubleMatrix> projectionBounds(const Matrix& x, const Matrix& dx, const Matrix& w,
                                                       const RowVector& bias)
{
    const DoubleMatrix abs_w = w.cast<double>().cwiseAbs();
    DoubleMatrix size = x.cast<double>().cwiseAbs() * abs_w;
    if (bias.size() > 0)
        size.rowwise() += bias.cast<double>().cwiseAbs();
    const DoubleMatrix moved = dx.cast<double>().cwiseAbs() * abs_w;
    const DoubleMatrix change = moved + gammaOf(w.rows() + 1) * (2.0 * size + moved);
    return {size, change};
}

// For one head's columns [first, first + width): per row, the 2-norm of the projection `values`
// and the bound on its change (the 2-norm of the elementwise bound). A position rotation turns
// pairs of features and keeps the 2-norm; each pass rounds a turned pair (a c - b s, a s + b c)
// within gamma_2 (|a| + |b|) per feature, at most 2 gamma_2 |(a, b)| for the pair, so both
// passes' rotations add 4 gamma_2 times the head's norm.
std::pair<Eigen::VectorXd, Eigen::VectorXd> headNorms(const Matrix& values, const DoubleMatrix& change, int first,
                                                      int width, bool rotated)
{
    Eigen::VectorXd norm = values.middleCols(first, width).cast<double>().rowwise().norm();
    Eigen::VectorXd moved = change.middleCols(first, width).rowwise().norm();
    if (rotated)
        moved += 4.0 * gammaOf(2) * norm;
    return {norm, moved};
}

// How far each attention weight of layer `l` may lie apart in the cached and the whole pass,
// from float32's error bounds: the layer's input X differs by dX (measured), so each head's q and
// k differ by at most the bounds above; a score s = q.k * scale then moves by at most
//   delta = scale (|dq| (|k| + |dk|) + |q| |dk| + (2 gamma_d + 2 u) (|q| + |dq|) (|k| + |dk|))
// (Cauchy-Schwarz, and each pass's rounding of the d-term product and of the scaling); a softmax
// whose scores all move by at most delta moves each weight p by at most p (exp(2 delta) - 1),
// plus each pass's rounding of exp, the row's sum of T terms and the division (gamma_{T+4} p).
std::vector<Matrix> attentionBounds(const TransformerModel& model, const ModelRun& cached, const ModelRun& whole, int l)
{
    const ModelRun layer_run = whole.selected_layer == l ? ModelRun() : wholeRun(model, whole.token_ids, l);
    const AttentionTrace& trace = whole.selected_layer == l ? whole.layer_trace : layer_run.layer_trace;
    const AttentionWeights& weights = model.weights().layers[size_t(l)].attention;
    const Matrix& x = whole.layer_inputs[size_t(l)];
    const Matrix dx = cached.layer_inputs[size_t(l)] - x;
    const int heads = weights.num_heads, kv_heads = weights.kvHeads(), d = weights.headDim();
    const RowVector no_bias;
    const auto [q_size, q_change] = projectionBounds(
        x, dx, weights.wq(), weights.hasInputBias() ? RowVector(weights.in_bias.head(weights.dModel())) : no_bias);
    const auto [k_size, k_change] = projectionBounds(
        x, dx, weights.wk(),
        weights.hasInputBias() ? RowVector(weights.in_bias.segment(weights.dModel(), weights.kvDim())) : no_bias);
    const bool rotated = model.config().rotary_dim > 0;
    const double scale = model.config().scale_attention ? 1.0 / std::sqrt(double(d)) : 1.0;
    const Eigen::Index tokens = x.rows();
    const double rounding = 2.0 * gammaOf(d) + 2.0 * kUnitRoundoff;
    std::vector<Matrix> bounds;
    for (int h = 0; h < heads; ++h) {
        const int g = h / (heads / kv_heads);
        const auto [q, dq] = headNorms(trace.q, q_change, h * d, d, rotated);
        const auto [k, dk] = headNorms(trace.k, k_change, g * d, d, rotated);
        Matrix bound(tokens, tokens);
        for (Eigen::Index i = 0; i < tokens; ++i) {
            double delta = 0.0;
            for (Eigen::Index j = 0; j < tokens; ++j)
                delta = std::max(delta, scale * (dq(i) * (k(j) + dk(j)) + q(i) * dk(j) +
                                                 rounding * (q(i) + dq(i)) * (k(j) + dk(j))));
            const double relative = std::expm1(2.0 * delta) + 2.0 * gammaOf(tokens + 4);
            for (Eigen::Index j = 0; j < tokens; ++j) {
                const double p =
                    std::max(cached.attention.at(l, h, int(i), int(j)), whole.attention.at(l, h, int(i), int(j)));
                bound(i, j) = float(p * relative + 2.0 * kUnitRoundoff);
            }
        }
        bounds.push_back(std::move(bound));
    }
    return bounds;
}

// Where |a - b| exceeds `bound` anywhere, in words; empty when it does not.
QString beyondBound(const char* name, const Matrix& a, const Matrix& b, const DoubleMatrix& bound)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return QStringLiteral("%1: different shapes").arg(QLatin1String(name));
    const DoubleMatrix excess = (a - b).cast<double>().cwiseAbs() - bound;
    Eigen::Index row = 0, col = 0;
    if (excess.size() == 0 || excess.maxCoeff(&row, &col) <= 0.0)
        return {};
    return QStringLiteral("%1 (%2, %3) differs by %4, bound %5")
        .arg(QLatin1String(name))
        .arg(row)
        .arg(col)
        .arg(double(std::abs(a(row, col) - b(row, col))))
        .arg(bound(row, col));
}

// The selected layer's weighted values (concat = P V per head) and output (concat Wo + bo), from
// the measured differences of P and V and of concat: |dC| <= |dP| |V| + |P| |dV| plus each pass's
// rounding of the T-term products (2 gamma_T |P| |V|, with the larger |P| and |V| of the two).
QString weightedValuesBeyondBounds(const TransformerModel& model, const ModelRun& cached, const ModelRun& whole)
{
    const int l = whole.selected_layer;
    const AttentionWeights& weights = model.weights().layers[size_t(l)].attention;
    const AttentionTrace& a = cached.layer_trace;
    const AttentionTrace& b = whole.layer_trace;
    const int heads = weights.num_heads, d = weights.headDim(), group = heads / weights.kvHeads();
    const Eigen::Index tokens = b.q.rows();
    DoubleMatrix concat_bound(tokens, heads * d);
    for (int h = 0; h < heads; ++h) {
        const DoubleMatrix p_a = cached.attention.head(l, h).cast<double>(),
                           p_b = whole.attention.head(l, h).cast<double>();
        const DoubleMatrix v_a = a.v.middleCols((h / group) * d, d).cast<double>();
        const DoubleMatrix v_b = b.v.middleCols((h / group) * d, d).cast<double>();
        const DoubleMatrix p = p_a.cwiseAbs().cwiseMax(p_b.cwiseAbs()), v = v_a.cwiseAbs().cwiseMax(v_b.cwiseAbs());
        concat_bound.middleCols(h * d, d) =
            (p_a - p_b).cwiseAbs() * v + p * (v_a - v_b).cwiseAbs() + 2.0 * gammaOf(tokens) * p * v;
    }
    if (QString beyond = beyondBound("concat", a.concat, b.concat, concat_bound); !beyond.isEmpty())
        return beyond;
    if (!weights.hasOutputProjection())
        return {};
    const DoubleMatrix abs_wo = weights.out_proj.cast<double>().cwiseAbs();
    DoubleMatrix terms = (a.concat.cast<double>().cwiseAbs() + b.concat.cast<double>().cwiseAbs()) * abs_wo;
    if (weights.out_bias.size() > 0)
        terms.rowwise() += 2.0 * weights.out_bias.cast<double>().cwiseAbs();
    const DoubleMatrix output_bound =
        (a.concat - b.concat).cast<double>().cwiseAbs() * abs_wo + gammaOf(abs_wo.rows() + 1) * terms;
    return beyondBound("output", a.output, b.output, output_bound);
}

// Where `cached` and `whole` differ by more than allowed, in words; empty when they agree.
QString compareRuns(const TransformerModel& model, const ModelRun& cached, const ModelRun& whole)
{
    if (cached.token_ids != whole.token_ids || cached.selected_layer != whole.selected_layer)
        return QStringLiteral("different tokens or selected layer");
    if (cached.layer_trace.query_offset != 0 || cached.layer_trace.queryLength() != whole.seqLen())
        return QStringLiteral("the selected layer's trace does not cover every query");
    const std::pair<const char*, std::pair<const Matrix*, const Matrix*>> parts[] = {
        {"last_hidden_state", {&cached.last_hidden_state, &whole.last_hidden_state}},
        {"layer_input", {&cached.layer_input, &whole.layer_input}},
        {"q", {&cached.layer_trace.q, &whole.layer_trace.q}},
        {"k", {&cached.layer_trace.k, &whole.layer_trace.k}},
        {"v", {&cached.layer_trace.v, &whole.layer_trace.v}},
    };
    for (int l = 0; l < whole.numLayers(); ++l)
        if (double d = relativeDifference(cached.layer_inputs[size_t(l)], whole.layer_inputs[size_t(l)]);
            d > kTolerance)
            return QStringLiteral("layer %1 input differs by %2").arg(l).arg(d);
    for (const auto& [name, pair] : parts)
        if (double d = relativeDifference(*pair.first, *pair.second); d > kTolerance)
            return QStringLiteral("%1 differs by %2").arg(QLatin1String(name)).arg(d);
    if (double d = relativeDifference(cached.q_before_rotation, whole.q_before_rotation); d > kTolerance)
        return QStringLiteral("Q before rotation differs by %1").arg(d);
    if (double d = relativeDifference(cached.k_before_rotation, whole.k_before_rotation); d > kTolerance)
        return QStringLiteral("K before rotation differs by %1").arg(d);
    for (int l = 0; l < whole.numLayers(); ++l) {
        const std::vector<Matrix> bounds = attentionBounds(model, cached, whole, l);
        for (int h = 0; h < whole.attention.numHeads(); ++h)
            if (QString beyond = beyondBound("attention", cached.attention.head(l, h), whole.attention.head(l, h),
                                             bounds[size_t(h)].cast<double>());
                !beyond.isEmpty())
                return QStringLiteral("layer %1 head %2: %3").arg(l).arg(h).arg(beyond);
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
    QVERIFY(relativeDifference(cache.k, whole->k) <= kTolerance);
    QVERIFY(relativeDifference(cache.v, whole->v) <= kTolerance);
    QVERIFY(relativeDifference(tail->output, whole->output.bottomRows(3)) <= kTolerance);
    for (int h = 0; h < 4; ++h)
        QVERIFY(relativeDifference(tail->probabilities[size_t(h)], whole->probabilities[size_t(h)].bottomRows(3)) <= kTolerance);
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
