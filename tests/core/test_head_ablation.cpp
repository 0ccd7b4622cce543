// Head ablation and the interventions of the forward pass (core/model/ForwardIntervention,
// TransformerForward::runIntervened, core/lens/AblationScan) against the float64 reference:
// tests/fixtures/models/*/ablation.json (reference_models.ablation_run / ablation_scan).
#include "core/lens/AblationScan.h"
#include "core/lens/LogitAttribution.h"
#include "core/lens/LogitMetric.h"
#include "core/model/TransformerForward.h"
#include "core/model/TransformerModel.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <atomic>
#include <cmath>

using namespace attn;
using namespace attn::testing;

namespace {

const char* const kAllFolders[] = {"gpt2-tiny",  "gpt2-prefixed", "bert-tiny",    "distilbert-tiny", "llama-tiny",
                                   "qwen2-tiny", "mistral-tiny",  "llama-biased", "pythia-tiny",     "neox-sequential"};

void addFolders()
{
    QTest::addColumn<QString>("folder");
    for (const char* name : kAllFolders)
        QTest::newRow(name) << fixturesPath("models/") + QLatin1String(name);
}

std::vector<int> intList(const QJsonArray& array)
{
    std::vector<int> values;
    for (const QJsonValue& v : array)
        values.push_back(v.toInt());
    return values;
}

MetricTokens tokensOf(const QJsonObject& metric)
{
    MetricTokens tokens;
    tokens.target = metric["target"].toInt();
    if (!metric["foil"].isNull())
        tokens.foil = metric["foil"].toInt();
    return tokens;
}

HeadAblation modeOf(const QString& text)
{
    return text == u"mean" ? HeadAblation::Mean : HeadAblation::Zero;
}

bool preNorm(const ModelConfig& config)
{
    return config.architecture != ModelArchitecture::Bert && config.architecture != ModelArchitecture::DistilBert;
}

double maxAbsDiff(const Matrix& m, const QJsonArray& rows)
{
    double worst = 0;
    for (int r = 0; r < m.rows(); ++r)
        for (int c = 0; c < m.cols(); ++c)
            worst = std::max(worst, std::abs(double(m(r, c)) - rows[r].toArray()[c].toDouble()));
    return worst;
}

double maxAbs(const QJsonArray& rows)
{
    double largest = 0;
    for (const QJsonValue& row : rows)
        for (const QJsonValue& v : row.toArray())
            largest = std::max(largest, std::abs(v.toDouble()));
    return largest;
}

double maxAttentionDiff(const ModelRun& run, const QJsonArray& attention)
{
    double worst = 0;
    for (int l = 0; l < run.numLayers(); ++l)
        for (int h = 0; h < run.attention.numHeads(); ++h)
            worst = std::max(worst, maxAbsDiff(run.attention.head(l, h), attention[l].toArray()[h].toArray()));
    return worst;
}

double maxDiff(const Matrix& a, const Matrix& b)
{
    return a.size() == 0 && b.size() == 0 ? 0.0 : double((a - b).cwiseAbs().maxCoeff());
}

struct Loaded {
    std::unique_ptr<TransformerModel> model;
    QJsonObject expected;
    std::vector<int> ids;
};

Loaded load(const QString& folder)
{
    Loaded loaded;
    loaded.expected = readJsonObject(folder + QStringLiteral("/ablation.json"));
    auto model = TransformerModel::load(folder);
    if (model)
        loaded.model = std::move(model).value();
    loaded.ids = intList(loaded.expected["token_ids"].toArray());
    return loaded;
}

}  // namespace

class TestHeadAblation : public QObject {
    Q_OBJECT

private slots:
    void ablatedRunsAgreeWithReference_data() { addFolders(); }
    void ablatedRunsAgreeWithReference();
    void scanAgreesWithReference_data() { addFolders(); }
    void scanAgreesWithReference();
    void scanEntryIsTheSingleAblatedRun_data() { addFolders(); }
    void scanEntryIsTheSingleAblatedRun();
    void emptyInterventionChangesNothing();
    void startingLaterGivesTheSameRun();
    void recordedActivationsReplayAnotherRun();
    void scanReportsProgressAndCancels();
    void refusals();
};

void TestHeadAblation::ablatedRunsAgreeWithReference()
{
    QFETCH(QString, folder);
    Loaded c = load(folder);
    QVERIFY2(!c.expected.isEmpty() && c.model, qPrintable(folder));
    const ModelConfig& config = c.model->config();
    const QJsonObject metric = c.expected["metric"].toObject();
    const MetricTokens tokens = tokensOf(metric);
    const int position = metric["position"].toInt();
    for (const QJsonValue& entry : c.expected["runs"].toArray()) {
        const QJsonObject reference = entry.toObject();
        ForwardIntervention ablation;
        for (const QJsonValue& pair : reference["ablated"].toArray())
            ablation.ablateHead(pair.toArray()[0].toInt(), pair.toArray()[1].toInt(),
                                modeOf(reference["mode"].toString()));
        auto run = TransformerForward::runIntervened(config, c.model->weights(), c.ids, 0, ablation);
        QVERIFY2(run, qPrintable(run.error()));
        const QString what = QJsonDocument(reference["ablated"].toArray()).toJson(QJsonDocument::Compact) +
                             QLatin1Char(' ') + reference["mode"].toString();

        // The contract's 2e-5: attention absolutely, the hidden state relative to its largest
        // value, the metric (a logit difference of order 1) absolutely.
        const double attention = maxAttentionDiff(*run, reference["attention"].toArray());
        const QJsonArray hidden = reference["last_hidden_state"].toArray();
        const double state = maxAbsDiff(run->last_hidden_state, hidden) / maxAbs(hidden);
        auto value = LogitMetric::value(config, c.model->weights(), *run, position, tokens);
        QVERIFY2(value, qPrintable(value.error()));
        const double metric_error = std::abs(*value - reference["metric"].toDouble());
        QVERIFY2(attention <= kContractTolerance && state <= kContractTolerance && metric_error <= kContractTolerance,
                 qPrintable(QStringLiteral("%1: attention %2, hidden state %3, metric %4")
                                .arg(what)
                                .arg(attention)
                                .arg(state)
                                .arg(metric_error)));
        if (!preNorm(config))
            continue;
        // The attribution of the ablated run: an ablated head's part is its replaced z times W_O^h.
        auto attribution = LogitAttribution::compute(config, c.model->weights(), *run, position, tokens);
        QVERIFY2(attribution, qPrintable(attribution.error()));
        const QJsonObject parts = reference["attribution"].toObject();
        double worst = std::abs(attribution->logit - parts["logit"].toDouble());
        for (int l = 0; l < config.num_layers; ++l) {
            for (int h = 0; h < config.num_heads; ++h)
                worst = std::max(
                    worst, std::abs(attribution->head(l, h) - parts["heads"].toArray()[l].toArray()[h].toDouble()));
            worst = std::max(worst, std::abs(attribution->mlp[size_t(l)] - parts["mlp"].toArray()[l].toDouble()));
        }
        const double scale = std::max(1.0, std::abs(parts["logit"].toDouble()));
        QVERIFY2(worst / scale <= kContractTolerance,
                 qPrintable(QStringLiteral("%1: a part off by %2").arg(what).arg(worst)));
        QVERIFY(std::abs(attribution->sum() - attribution->logit) / scale <= 1e-4);
    }
}

void TestHeadAblation::scanAgreesWithReference()
{
    QFETCH(QString, folder);
    Loaded c = load(folder);
    QVERIFY2(!c.expected.isEmpty() && c.model, qPrintable(folder));
    const ModelConfig& config = c.model->config();
    auto plain = c.model->forward(c.ids, 0, true);
    QVERIFY2(plain, qPrintable(plain.error()));
    const QJsonObject metric = c.expected["metric"].toObject();
    const QJsonObject scans = c.expected["scan"].toObject();
    for (const QString& mode : {QStringLiteral("zero"), QStringLiteral("mean")}) {
        auto scan = AblationScan::run(config, c.model->weights(), *plain, metric["position"].toInt(), tokensOf(metric),
                                      modeOf(mode));
        QVERIFY2(scan, qPrintable(scan.error()));
        const QJsonArray reference = scans[mode].toArray();
        QCOMPARE(int(reference.size()), config.num_layers);
        double worst = std::abs(scan->plain - metric["value"].toDouble());
        for (int l = 0; l < config.num_layers; ++l)
            for (int h = 0; h < config.num_heads; ++h)
                worst = std::max(worst, std::abs(scan->at(l, h) - reference[l].toArray()[h].toDouble()));
        // The contract's 2e-5 on each entry (a difference of two metrics of order 1).
        QVERIFY2(worst <= kContractTolerance, qPrintable(QStringLiteral("%1 scan off by %2").arg(mode).arg(worst)));
    }
}

void TestHeadAblation::scanEntryIsTheSingleAblatedRun()
{
    QFETCH(QString, folder);
    Loaded c = load(folder);
    QVERIFY2(!c.expected.isEmpty() && c.model, qPrintable(folder));
    const ModelConfig& config = c.model->config();
    auto plain = c.model->forward(c.ids, 0, true);
    QVERIFY2(plain, qPrintable(plain.error()));
    const QJsonObject metric = c.expected["metric"].toObject();
    const int position = metric["position"].toInt();
    const MetricTokens tokens = tokensOf(metric);
    auto scan = AblationScan::run(config, c.model->weights(), *plain, position, tokens, HeadAblation::Mean);
    QVERIFY2(scan, qPrintable(scan.error()));
    auto plain_value = LogitMetric::value(config, c.model->weights(), *plain, position, tokens);
    QVERIFY(plain_value);
    double worst = 0;
    for (int l = 0; l < config.num_layers; ++l) {
        for (int h = 0; h < config.num_heads; ++h) {
            ForwardIntervention ablation;
            ablation.ablateHead(l, h, HeadAblation::Mean);
            auto run = TransformerForward::runIntervened(config, c.model->weights(), c.ids, 0, ablation);
            QVERIFY2(run, qPrintable(run.error()));
            auto value = LogitMetric::value(config, c.model->weights(), *run, position, tokens);
            QVERIFY(value);
            worst = std::max(worst, std::abs(scan->at(l, h) - (*value - *plain_value)));
        }
    }
    // The scan's pass from layer l starts at the plain run's residual there, which is what the
    // whole ablated pass computes before l: the same float32 operations, so equal up to the
    // order of a product's sums on one thread or two (a few float32 ulps of the logits).
    QVERIFY2(worst <= 1e-5, qPrintable(QStringLiteral("scan and single runs differ by %1").arg(worst)));
}

void TestHeadAblation::emptyInterventionChangesNothing()
{
    Loaded c = load(modelFixture(QStringLiteral("llama-tiny")));
    QVERIFY(c.model);
    auto plain = c.model->forward(c.ids, 1, true);
    auto same = TransformerForward::runIntervened(c.model->config(), c.model->weights(), c.ids, 1,
                                                  ForwardIntervention(), nullptr, true);
    QVERIFY(plain && same);
    QCOMPARE(maxDiff(plain->last_hidden_state, same->last_hidden_state), 0.0);
    for (int l = 0; l < plain->numLayers(); ++l) {
        QCOMPARE(plain->attention.layer(l), same->attention.layer(l));
        QCOMPARE(maxDiff(plain->residual_stream[size_t(l)], same->residual_stream[size_t(l)]), 0.0);
    }
    QCOMPARE(maxDiff(plain->layer_trace.output, same->layer_trace.output), 0.0);
    QVERIFY(same->replaced_heads.empty());
}

void TestHeadAblation::startingLaterGivesTheSameRun()
{
    for (const char* name : {"gpt2-tiny", "bert-tiny", "pythia-tiny"}) {
        Loaded c = load(modelFixture(QLatin1String(name)));
        QVERIFY(c.model);
        auto plain = c.model->forward(c.ids, 0, true);
        QVERIFY(plain);
        ForwardIntervention later;
        later.startAt(1);
        auto run =
            TransformerForward::runIntervened(c.model->config(), c.model->weights(), c.ids, 0, later, &*plain, true);
        QVERIFY2(run, qPrintable(run.error()));
        // Layer 1 reads exactly the residual the plain pass gave it: the same operations.
        QCOMPARE(maxDiff(plain->last_hidden_state, run->last_hidden_state), 0.0);
        for (int l = 0; l < plain->numLayers(); ++l)
            QCOMPARE(plain->attention.layer(l), run->attention.layer(l));
        QCOMPARE(maxDiff(plain->layer_trace.output, run->layer_trace.output), 0.0);
    }
}

void TestHeadAblation::recordedActivationsReplayAnotherRun()
{
    // Every site recorded from a clean input and put back into another input's pass at every
    // position (or every head) of one layer gives the clean run from there on.
    for (const char* name : {"gpt2-tiny", "distilbert-tiny", "qwen2-tiny", "pythia-tiny"}) {
        Loaded c = load(modelFixture(QLatin1String(name)));
        QVERIFY(c.model);
        const ModelConfig& config = c.model->config();
        std::vector<int> corrupt = c.ids;
        std::reverse(corrupt.begin(), corrupt.end());
        ActivationRecord clean_record;
        ForwardIntervention recording;
        for (InterventionSite site :
             {InterventionSite::Residual, InterventionSite::Attention, InterventionSite::Mlp, InterventionSite::HeadZ})
            recording.record(site, &clean_record);
        auto clean = TransformerForward::runIntervened(config, c.model->weights(), c.ids, 0, recording);
        QVERIFY2(clean, qPrintable(clean.error()));
        QCOMPARE(int(clean_record.head_z.size()), config.num_layers);
        const int last = config.num_layers - 1;
        const int T = int(c.ids.size());
        const int D = config.headDim();

        // Residual at the last layer, every position: the pass from there is the clean one.
        ForwardIntervention residual;
        for (int t = 0; t < T; ++t)
            residual.replaceRow(InterventionSite::Residual, last, t, clean_record.residual[size_t(last)].row(t));
        auto patched = TransformerForward::runIntervened(config, c.model->weights(), corrupt, 0, residual);
        QVERIFY2(patched, qPrintable(patched.error()));
        QCOMPARE(maxDiff(patched->last_hidden_state, clean->last_hidden_state), 0.0);

        // Every head's z, then the MLP's output, of the last layer: the attention output is the
        // clean one (same z, same projection), and with the MLP's too, the block's output is
        // the clean one's when the residual entering it is (pre-norm: x + attn + mlp).
        ForwardIntervention heads;
        for (int h = 0; h < config.num_heads; ++h)
            heads.replaceHead(last, h, clean_record.head_z[size_t(last)].middleCols(h * D, D));
        ActivationRecord patched_record;
        heads.record(InterventionSite::Attention, &patched_record);
        auto by_heads = TransformerForward::runIntervened(config, c.model->weights(), corrupt, 0, heads);
        QVERIFY2(by_heads, qPrintable(by_heads.error()));
        QCOMPARE(maxDiff(patched_record.attention[size_t(last)], clean_record.attention[size_t(last)]), 0.0);

        ForwardIntervention rows;
        for (int t = 0; t < T; ++t) {
            rows.replaceRow(InterventionSite::Attention, last, t, clean_record.attention[size_t(last)].row(t));
            rows.replaceRow(InterventionSite::Mlp, last, t, clean_record.mlp[size_t(last)].row(t));
        }
        ActivationRecord rows_record;
        rows.record(InterventionSite::Mlp, &rows_record);
        auto by_rows = TransformerForward::runIntervened(config, c.model->weights(), corrupt, 0, rows);
        QVERIFY2(by_rows, qPrintable(by_rows.error()));
        QCOMPARE(maxDiff(rows_record.mlp[size_t(last)], clean_record.mlp[size_t(last)]), 0.0);
    }
}

void TestHeadAblation::scanReportsProgressAndCancels()
{
    Loaded c = load(modelFixture(QStringLiteral("qwen2-tiny")));
    QVERIFY(c.model);
    const ModelConfig& config = c.model->config();
    auto plain = c.model->forward(c.ids, 0, true);
    QVERIFY(plain);
    const QJsonObject metric = c.expected["metric"].toObject();
    const int total = config.num_layers * config.num_heads;

    std::vector<int> reports;
    ScanControl control;
    control.report = [&reports](int done, int all) {
        QCOMPARE(all, 12);
        reports.push_back(done);
    };
    auto scan = AblationScan::run(config, c.model->weights(), *plain, metric["position"].toInt(), tokensOf(metric),
                                  HeadAblation::Zero, control);
    QVERIFY2(scan, qPrintable(scan.error()));
    QCOMPARE(int(reports.size()), total);
    std::sort(reports.begin(), reports.end());
    for (int i = 0; i < total; ++i)
        QCOMPARE(reports[size_t(i)], i + 1);

    // Cancelled after the third pass: no further pass starts, and the scan says so.
    std::atomic<bool> cancel{false};
    std::atomic<int> passes{0};
    control.cancel = &cancel;
    control.report = [&](int, int) {
        if (++passes == 3)
            cancel = true;
    };
    auto cancelled = AblationScan::run(config, c.model->weights(), *plain, metric["position"].toInt(), tokensOf(metric),
                                       HeadAblation::Zero, control);
    QVERIFY(!cancelled);
    QCOMPARE(cancelled.error(), AblationScan::cancelledMessage());
    QVERIFY(passes.load() < total);
}

void TestHeadAblation::refusals()
{
    Loaded c = load(modelFixture(QStringLiteral("gpt2-tiny")));
    QVERIFY(c.model);
    const ModelConfig& config = c.model->config();
    const auto refused = [&](const ForwardIntervention& intervention, const ModelRun* earlier, const char* words) {
        auto run = TransformerForward::runIntervened(config, c.model->weights(), c.ids, 0, intervention, earlier);
        QVERIFY(!run);
        QVERIFY2(run.error().contains(QLatin1String(words)), qPrintable(run.error()));
    };
    ForwardIntervention head;
    head.ablateHead(0, config.num_heads, HeadAblation::Zero);
    refused(head, nullptr, "head 4 is outside heads 0 to 3");
    ForwardIntervention layer;
    layer.ablateHead(config.num_layers, 0, HeadAblation::Zero);
    refused(layer, nullptr, "layer 2 is outside layers 0 to 1");
    ForwardIntervention position;
    position.replaceRow(InterventionSite::Mlp, 0, int(c.ids.size()), RowVector::Zero(config.hidden_size));
    refused(position, nullptr, "position 12 is outside positions 0 to 11");
    ForwardIntervention shape;
    shape.replaceHead(0, 0, Matrix::Zero(3, config.headDim()));
    refused(shape, nullptr, "the pass needs 12 x 8");
    ForwardIntervention later;
    later.startAt(1);
    refused(later, nullptr, "needs an earlier run");
    auto without_residuals = c.model->forward(c.ids);
    QVERIFY(without_residuals);
    refused(later, &*without_residuals, "did not keep the residual entering layer 1");
}

REGISTER_TEST_SUITE(TestHeadAblation, QCoreApplication)

#include "test_head_ablation.moc"
