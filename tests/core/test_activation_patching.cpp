// Activation patching (core/lens/ActivationPatching) against the float64 reference:
// tests/fixtures/models/*/patching.json (reference_models.patching_scan).
#include "core/lens/ActivationPatching.h"
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
const InterventionSite kSites[] = {InterventionSite::Residual, InterventionSite::Attention, InterventionSite::Mlp,
                                   InterventionSite::HeadZ};

std::vector<int> intList(const QJsonArray& array)
{
    std::vector<int> values;
    for (const QJsonValue& v : array)
        values.push_back(v.toInt());
    return values;
}

struct Case {
    std::unique_ptr<TransformerModel> model;
    QJsonObject expected;
    std::vector<int> corrupt_ids;
    PatchingRequest request;
};

Case load(const QString& folder, InterventionSite site = InterventionSite::Residual)
{
    Case c;
    c.expected = readJsonObject(folder + QStringLiteral("/patching.json"));
    auto model = TransformerModel::load(folder);
    if (model)
        c.model = std::move(model).value();
    c.corrupt_ids = intList(c.expected["token_ids"].toArray());
    c.request.clean_ids = intList(c.expected["clean_token_ids"].toArray());
    c.request.site = site;
    const QJsonObject metric = c.expected["metric"].toObject();
    c.request.position = metric["position"].toInt();
    c.request.tokens.target = metric["target"].toInt();
    if (!metric["foil"].isNull())
        c.request.tokens.foil = metric["foil"].toInt();
    return c;
}

}  // namespace

class TestActivationPatching : public QObject {
    Q_OBJECT

private slots:
    void valuesAgreeWithReference_data();
    void valuesAgreeWithReference();
    void eachPassFromItsLayerIsTheWholePass();
    void scanReportsProgressAndCancels();
    void refusals();
};

void TestActivationPatching::valuesAgreeWithReference_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<int>("site");
    for (const char* name : kAllFolders)
        for (InterventionSite site : kSites)
            QTest::newRow(
                qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(name), ActivationPatching::siteName(site))))
                << fixturesPath("models/") + QLatin1String(name) << int(site);
}

void TestActivationPatching::valuesAgreeWithReference()
{
    QFETCH(QString, folder);
    QFETCH(int, site);
    Case c = load(folder, InterventionSite(site));
    QVERIFY(c.model);
    auto corrupted = c.model->forward(c.corrupt_ids, 0, true);
    QVERIFY2(corrupted, qPrintable(corrupted.error()));
    auto result = ActivationPatching::run(c.model->config(), c.model->weights(), *corrupted, c.request);
    QVERIFY2(result, qPrintable(result.error()));

    const QJsonArray rows =
        c.expected["values"].toObject()[ActivationPatching::siteName(InterventionSite(site))].toArray();
    QCOMPARE(result->num_layers, int(rows.size()));
    QCOMPARE(result->columns, int(rows[0].toArray().size()));
    // Each value is a ratio (m_patched - m_corrupt) / (m_clean - m_corrupt) of float32 metrics that
    // lie within about 1e-6 of the reference's; its error is theirs divided by |m_clean - m_corrupt|,
    // which the fixtures' clean inputs keep at 0.11 or more, so it stays below 1e-5 (3e-6 at most
    // here) and the contract's 2e-5 holds for the values as for the metrics themselves.
    double worst = std::abs(result->clean - c.expected["clean_metric"].toDouble());
    worst = std::max(worst, std::abs(result->corrupt - c.expected["metric"].toObject()["value"].toDouble()));
    for (int l = 0; l < result->num_layers; ++l)
        for (int i = 0; i < result->columns; ++i)
            worst = std::max(worst, std::abs(result->at(l, i) - rows[l].toArray()[i].toDouble()));
    QVERIFY2(worst <= kContractTolerance, qPrintable(QStringLiteral("off by %1").arg(worst)));
    qDebug("%s: largest difference %.2e", qPrintable(QFileInfo(folder).fileName()), worst);
}

// A pass started at its layer from the corrupted run's residual gives what the whole pass with the
// same patch gives.
void TestActivationPatching::eachPassFromItsLayerIsTheWholePass()
{
    for (const char* name : {"gpt2-tiny", "bert-tiny", "llama-tiny", "pythia-tiny"}) {
        for (InterventionSite site : kSites) {
            Case c = load(modelFixture(QLatin1String(name)), site);
            QVERIFY(c.model);
            const ModelConfig& config = c.model->config();
            auto corrupted = c.model->forward(c.corrupt_ids, 0, true);
            QVERIFY(corrupted);
            auto result = ActivationPatching::run(config, c.model->weights(), *corrupted, c.request);
            QVERIFY2(result, qPrintable(result.error()));

            ActivationRecord clean;
            ForwardIntervention recording;
            recording.record(site, &clean);
            auto clean_run =
                TransformerForward::runIntervened(config, c.model->weights(), c.request.clean_ids, 0, recording);
            QVERIFY(clean_run);
            const int layer = config.num_layers - 1;
            const int column = result->columns - 2;
            ForwardIntervention whole;
            if (site == InterventionSite::HeadZ)
                whole.replaceHead(
                    layer, column,
                    clean.at(site)[size_t(layer)].middleCols(column * config.headDim(), config.headDim()));
            else
                whole.replaceRow(site, layer, column, clean.at(site)[size_t(layer)].row(column));
            auto patched = TransformerForward::runIntervened(config, c.model->weights(), c.corrupt_ids, 0, whole);
            QVERIFY(patched);
            auto metric =
                LogitMetric::value(config, c.model->weights(), *patched, c.request.position, c.request.tokens);
            QVERIFY(metric);
            const double value = (*metric - result->corrupt) / (result->clean - result->corrupt);
            // Both routes compute the same blocks in float32 from the same residual: equal up to the
            // order of float32 additions in the passes' products.
            QVERIFY2(std::abs(value - result->at(layer, column)) <= 1e-5,
                     qPrintable(QStringLiteral("%1 %2: %3 against %4")
                                    .arg(QLatin1String(name), ActivationPatching::siteName(site))
                                    .arg(result->at(layer, column))
                                    .arg(value)));
        }
    }
}

void TestActivationPatching::scanReportsProgressAndCancels()
{
    Case c = load(modelFixture(QStringLiteral("qwen2-tiny")), InterventionSite::HeadZ);
    QVERIFY(c.model);
    auto corrupted = c.model->forward(c.corrupt_ids, 0, true);
    QVERIFY(corrupted);
    std::vector<int> reports;
    int announced = 0;
    ScanControl control;
    control.report = [&](int done, int all) {
        announced = all;
        reports.push_back(done);
    };
    auto result = ActivationPatching::run(c.model->config(), c.model->weights(), *corrupted, c.request, control);
    QVERIFY2(result, qPrintable(result.error()));
    QVERIFY(announced > 3);
    QCOMPARE(int(reports.size()), announced);
    std::sort(reports.begin(), reports.end());
    for (int i = 0; i < announced; ++i)
        QCOMPARE(reports[size_t(i)], i + 1);

    // Cancelled after the third pass: no further pass starts, and the scan says so.
    std::atomic<bool> cancel{false};
    std::atomic<int> passes{0};
    control.cancel = &cancel;
    control.report = [&](int, int) {
        if (++passes == 3)
            cancel = true;
    };
    auto cancelled = ActivationPatching::run(c.model->config(), c.model->weights(), *corrupted, c.request, control);
    QVERIFY(!cancelled);
    QCOMPARE(cancelled.error(), ActivationPatching::cancelledMessage());
    QVERIFY(passes.load() < announced);
}

void TestActivationPatching::refusals()
{
    Case c = load(modelFixture(QStringLiteral("gpt2-tiny")));
    QVERIFY(c.model);
    const ModelConfig& config = c.model->config();
    auto corrupted = c.model->forward(c.corrupt_ids, 0, true);
    QVERIFY(corrupted);
    const auto refused = [&](const PatchingRequest& request, const ModelRun& run, const char* words) {
        auto result = ActivationPatching::run(config, c.model->weights(), run, request);
        QVERIFY(!result);
        QVERIFY2(result.error().contains(QLatin1String(words)), qPrintable(result.error()));
    };
    PatchingRequest shorter = c.request;
    shorter.clean_ids.pop_back();
    refused(shorter, *corrupted, "the clean input has 11 tokens, the corrupted input 12");
    PatchingRequest same = c.request;
    same.clean_ids = c.corrupt_ids;
    refused(same, *corrupted, "for both inputs");
    PatchingRequest small_budget = c.request;
    small_budget.memory_budget = 1000;
    refused(small_budget, *corrupted, "over the memory budget");
    auto without_residuals = c.model->forward(c.corrupt_ids);
    QVERIFY(without_residuals);
    refused(c.request, *without_residuals, "did not keep the residual entering layer");

    QCOMPARE(ActivationPatching::siteNamed(QStringLiteral("mlp")), std::optional(InterventionSite::Mlp));
    QCOMPARE(ActivationPatching::siteNamed(QStringLiteral("heads")), std::optional(InterventionSite::HeadZ));
    QVERIFY(!ActivationPatching::siteNamed(QStringLiteral("z")));
}

REGISTER_TEST_SUITE(TestActivationPatching, QCoreApplication)

#include "test_activation_patching.moc"
