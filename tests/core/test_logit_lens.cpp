// What heads do (core/lens/) against the float64 reference: the tiny folders of
// tests/fixtures/models/ and their heads.json (reference_models.heads_run): the logit lens
// (top K with ties, the tracked token's p and rank), the metric, and the direct logit
// attribution with its sum identity on every pre-norm family.
#include "core/lens/AttentionNorms.h"
#include "core/lens/LogitAttribution.h"
#include "core/lens/LogitLens.h"
#include "core/lens/LogitMetric.h"
#include "core/model/TransformerModel.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
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

const char* const kAllFolders[] = {"gpt2-tiny",  "gpt2-prefixed", "bert-tiny",    "distilbert-tiny", "llama-tiny",
                                   "qwen2-tiny", "mistral-tiny",  "llama-biased", "pythia-tiny",     "neox-sequential"};
const char* const kPreNormFolders[] = {"gpt2-tiny",    "gpt2-prefixed", "llama-tiny",  "qwen2-tiny",
                                       "mistral-tiny", "llama-biased",  "pythia-tiny", "neox-sequential"};

QJsonObject readHeads(const QString& dir)
{
    return readJsonObject(dir + QStringLiteral("/heads.json"));
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

void addFolders(const char* const* first, const char* const* last)
{
    QTest::addColumn<QString>("folder");
    for (auto name = first; name != last; ++name)
        QTest::newRow(*name) << fixturesPath("models/") + QLatin1String(*name);
}

}  // namespace

class TestLogitLens : public QObject {
    Q_OBJECT

private slots:
    void lensAgreesWithReference_data() { addFolders(std::begin(kAllFolders), std::end(kAllFolders)); }
    void lensAgreesWithReference();
    void metricAgreesWithReference_data() { addFolders(std::begin(kAllFolders), std::end(kAllFolders)); }
    void metricAgreesWithReference();
    void attributionAgreesWithReference_data() { addFolders(std::begin(kPreNormFolders), std::end(kPreNormFolders)); }
    void attributionAgreesWithReference();
    void valueNormsAgreeWithReference_data() { addFolders(std::begin(kAllFolders), std::end(kAllFolders)); }
    void valueNormsAgreeWithReference();
    void valueNormsWithoutOutputProjection();
    void lastPositionComesFirst();
    void cachedRunGivesTheSameLens();
    void refusals();
    void metricTokens();
};

void TestLogitLens::lensAgreesWithReference()
{
    QFETCH(QString, folder);
    const QJsonObject expected = readHeads(folder);
    QVERIFY2(!expected.isEmpty(), qPrintable(folder + "/heads.json is missing"));
    auto model = TransformerModel::load(folder);
    QVERIFY2(model, qPrintable(model.error()));
    const ModelConfig& config = (*model)->config();
    auto run = (*model)->forward(intList(expected["token_ids"].toArray()), 0, true);
    QVERIFY2(run, qPrintable(run.error()));

    const QJsonObject lens = expected["logit_lens"].toObject();
    const QJsonObject target = lens["target"].toObject();
    LensRequest request;
    request.top_k = expected["top_k"].toInt();
    request.tracked = target["id"].toInt();
    auto result = LogitLens::compute(config, (*model)->weights(), *run, request);
    QVERIFY2(result, qPrintable(result.error()));
    const QJsonArray top = lens["top"].toArray();
    QCOMPARE(result->num_rows, int(top.size()));
    QCOMPARE(result->num_rows, config.num_layers + 1);
    QCOMPARE(result->seq_len, run->seqLen());

    // p within the contract's 2e-5 (absolute: p is at most 1). Ids and ranks exact, except that
    // two tokens whose reference p differ by less than the tolerance may come in either order
    // (lens_min_gap in heads.json: 4e-9 on bert-tiny, 2e-8 on gpt2-tiny, whose 30k and 50k-token
    // vocabularies give many near-equal small p): an id may then differ where its p agrees.
    double worst_p = 0;
    int swapped = 0;
    for (int l = 0; l < result->num_rows; ++l) {
        const QJsonArray row = top[l].toArray();
        for (int t = 0; t < result->seq_len; ++t) {
            const QJsonArray entries = row[t].toArray();
            const LensCell& cell = result->at(l, t);
            QCOMPARE(int(cell.top.size()), int(entries.size()));
            for (int r = 0; r < int(entries.size()); ++r) {
                const QJsonObject entry = entries[r].toObject();
                const double p = entry["p"].toDouble();
                worst_p = std::max(worst_p, std::abs(cell.top[size_t(r)].p - p));
                if (cell.top[size_t(r)].id != entry["id"].toInt()) {
                    ++swapped;
                    QVERIFY2(std::abs(cell.top[size_t(r)].p - p) <= kContractTolerance,
                             qPrintable(QStringLiteral("row %1 position %2 rank %3: id %4, expected %5")
                                            .arg(l)
                                            .arg(t)
                                            .arg(r)
                                            .arg(cell.top[size_t(r)].id)
                                            .arg(entry["id"].toInt())));
                }
            }
            const double tracked_p = target["p"].toArray()[l].toArray()[t].toDouble();
            worst_p = std::max(worst_p, std::abs(cell.tracked_p - tracked_p));
            const int rank = target["rank"].toArray()[l].toArray()[t].toInt();
            // The rank may move only past tokens within the tolerance of its p: at most by the
            // ties the vocabulary has there; these fixtures have none for the tracked token.
            QCOMPARE(cell.tracked_rank, rank);
        }
    }
    QVERIFY2(worst_p <= kContractTolerance, qPrintable(QStringLiteral("p off by %1").arg(worst_p)));
    qInfo("lens p max abs error %.3g, %d ids in another order within the tolerance", worst_p, swapped);
}

void TestLogitLens::metricAgreesWithReference()
{
    QFETCH(QString, folder);
    const QJsonObject expected = readHeads(folder);
    auto model = TransformerModel::load(folder);
    QVERIFY2(model, qPrintable(model.error()));
    auto run = (*model)->forward(intList(expected["token_ids"].toArray()));
    QVERIFY2(run, qPrintable(run.error()));
    const QJsonObject metric = expected["metric"].toObject();
    auto value =
        LogitMetric::value((*model)->config(), (*model)->weights(), *run, metric["position"].toInt(), tokensOf(metric));
    QVERIFY2(value, qPrintable(value.error()));
    // A logit difference: the contract's 2e-5 relative to max(1, |value|), as the hidden state it is made of.
    const double error =
        std::abs(*value - metric["value"].toDouble()) / std::max(1.0, std::abs(metric["value"].toDouble()));
    QVERIFY2(error <= kContractTolerance, qPrintable(QStringLiteral("metric off by %1").arg(error)));
}

void TestLogitLens::attributionAgreesWithReference()
{
    QFETCH(QString, folder);
    const QJsonObject expected = readHeads(folder);
    auto model = TransformerModel::load(folder);
    QVERIFY2(model, qPrintable(model.error()));
    const ModelConfig& config = (*model)->config();
    auto run = (*model)->forward(intList(expected["token_ids"].toArray()));
    QVERIFY2(run, qPrintable(run.error()));
    const QJsonObject reference = expected["attribution"].toObject();
    const MetricTokens tokens = tokensOf(reference);
    auto result = LogitAttribution::compute(config, (*model)->weights(), *run, reference["position"].toInt(), tokens);
    QVERIFY2(result, qPrintable(result.error()));

    // Each part within the contract's 2e-5 relative to max(1, |logit|): the parts are pieces of
    // the logit, made of the same float32 layers.
    const double scale = std::max(1.0, std::abs(reference["logit"].toDouble()));
    double worst = std::abs(result->logit - reference["logit"].toDouble());
    worst = std::max(worst, std::abs(result->embed - reference["embed"].toDouble()));
    worst = std::max(worst, std::abs(result->final_bias - reference["final_bias"].toDouble()));
    const QJsonArray heads = reference["heads"].toArray();
    QCOMPARE(int(heads.size()), config.num_layers);
    for (int l = 0; l < config.num_layers; ++l) {
        QCOMPARE(int(heads[l].toArray().size()), config.num_heads);
        for (int h = 0; h < config.num_heads; ++h)
            worst = std::max(worst, std::abs(result->head(l, h) - heads[l].toArray()[h].toDouble()));
        worst =
            std::max(worst, std::abs(result->attn_bias[size_t(l)] - reference["attn_bias"].toArray()[l].toDouble()));
        worst = std::max(worst, std::abs(result->mlp[size_t(l)] - reference["mlp"].toArray()[l].toDouble()));
    }
    QVERIFY2(worst / scale <= kContractTolerance, qPrintable(QStringLiteral("a part off by %1").arg(worst)));

    // The contract's identity: the parts add up to the model's own logit (difference) within
    // 1e-4 relative to max(1, |logit|).
    const double identity = std::abs(result->sum() - result->logit) / std::max(1.0, std::abs(result->logit));
    QVERIFY2(identity <= 1e-4,
             qPrintable(QStringLiteral("parts sum to %1, logit %2").arg(result->sum()).arg(result->logit)));
    qInfo("attribution worst part error %.3g, sum identity %.3g (relative)", worst / scale, identity);
}

void TestLogitLens::valueNormsAgreeWithReference()
{
    QFETCH(QString, folder);
    const QJsonObject expected = readHeads(folder);
    auto model = TransformerModel::load(folder);
    QVERIFY2(model, qPrintable(model.error()));
    const ModelConfig& config = (*model)->config();
    auto run = (*model)->forward(intList(expected["token_ids"].toArray()));
    QVERIFY2(run, qPrintable(run.error()));
    auto norms = AttentionNorms::ofModel(config, (*model)->weights(), *run);
    QVERIFY2(norms, qPrintable(norms.error()));
    const QJsonArray reference = expected["attention_norms"].toArray();
    QCOMPARE(int(reference.size()), config.num_layers);
    // The contract's 2e-5 x max(1, the largest norm): ||A_ij f(x_j)|| is made of the weights and
    // the layer's input, both within 2e-5 of float64.
    double largest = 1.0;
    double worst = 0.0;
    for (int l = 0; l < config.num_layers; ++l)
        for (int h = 0; h < config.num_heads; ++h)
            for (int i = 0; i < run->seqLen(); ++i)
                for (int j = 0; j < run->seqLen(); ++j) {
                    const double want = reference[l].toArray()[h].toArray()[i].toArray()[j].toDouble();
                    const double got = double(run->attention.at(l, h, i, j)) * double((*norms)[size_t(l)](h, j));
                    largest = std::max(largest, std::abs(want));
                    worst = std::max(worst, std::abs(got - want));
                }
    QVERIFY2(worst <= kContractTolerance * largest, qPrintable(QStringLiteral("off by %1").arg(worst)));
    qInfo("value-weighted attention max abs error %.3g (largest norm %.3g)", worst, largest);
}

void TestLogitLens::valueNormsWithoutOutputProjection()
{
    // Without W_O the output is the heads' concatenation: f^h(x_j) = v_j^h. Two heads sharing one
    // key/value head (grouped): both see the same norms.
    Matrix values(2, 2);  // (T_kv, kv_dim): one key/value head of 2 features
    values << 3, 4, 0, -2;
    const Matrix norms = AttentionNorms::valueNorms(values, 2, 1, Matrix());
    QCOMPARE(norms.rows(), Eigen::Index(2));
    QCOMPARE(norms(0, 0), 5.0f);
    QCOMPARE(norms(1, 0), 5.0f);
    QCOMPARE(norms(0, 1), 2.0f);
    // With W_O (D = 2 rows per head, C = 3): ||v W_O^h||.
    Matrix out_proj(4, 3);
    out_proj << 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0;
    const Matrix projected = AttentionNorms::valueNorms(values, 2, 1, out_proj);
    QCOMPARE(projected(0, 0), 5.0f);  // (3, 4, 0)
    QCOMPARE(projected(1, 0), 6.0f);  // (0, 0, 6)
    QCOMPARE(projected(1, 1), 0.0f);  // (0, 0, 0)
}

void TestLogitLens::lastPositionComesFirst()
{
    auto model = TransformerModel::load(fixturesPath("models/gpt2-tiny"));
    QVERIFY2(model, qPrintable(model.error()));
    std::vector<int> ids(64);  // n_positions: the last position, then one block of the 63 others
    for (size_t i = 0; i < ids.size(); ++i)
        ids[i] = int(i * 7 + 11);
    auto run = (*model)->forward(ids, 0, true);
    QVERIFY2(run, qPrintable(run.error()));
    std::vector<std::vector<bool>> seen;
    auto result = LogitLens::compute((*model)->config(), (*model)->weights(), *run, LensRequest{},
                                     [&seen](const LensResult& partial) {
                                         seen.push_back(partial.done);
                                         return true;
                                     });
    QVERIFY2(result, qPrintable(result.error()));
    QVERIFY(seen.size() >= 2);
    // First report: the last position alone, every row of it.
    QCOMPARE(int(std::count(seen[0].begin(), seen[0].end(), true)), 1);
    QVERIFY(seen[0].back());
    QVERIFY(std::all_of(seen.back().begin(), seen.back().end(), [](bool d) { return d; }));

    // A newer request stops it: the partial result holds the last position only.
    auto stopped = LogitLens::compute((*model)->config(), (*model)->weights(), *run, LensRequest{},
                                      [](const LensResult&) { return false; });
    QVERIFY2(stopped, qPrintable(stopped.error()));
    QVERIFY(stopped->done.back());
    QVERIFY(!stopped->done.front());
    // The last position's cells equal those of the whole computation.
    for (int l = 0; l < result->num_rows; ++l)
        for (int r = 0; r < result->top_k; ++r)
            QCOMPARE(stopped->at(l, 63).top[size_t(r)].id, result->at(l, 63).top[size_t(r)].id);
}

void TestLogitLens::cachedRunGivesTheSameLens()
{
    auto model = TransformerModel::load(fixturesPath("models/llama-tiny"));
    QVERIFY2(model, qPrintable(model.error()));
    const std::vector<int> ids = {1, 5, 9, 33, 7, 2, 100, 64};
    ForwardCache cache;
    std::vector<int> prefix(ids.begin(), ids.begin() + 5);
    QVERIFY((*model)->forward(prefix, 0, cache, true));
    auto cached = (*model)->forward(ids, 0, cache, true);
    QVERIFY2(cached, qPrintable(cached.error()));
    QCOMPARE(int((*cached)->residual_stream.size()), (*model)->config().num_layers);
    auto whole = (*model)->forward(ids, 0, true);
    QVERIFY2(whole, qPrintable(whole.error()));
    // The same residual stream up to the order of float32 sums (within the contract's 2e-5).
    for (size_t l = 0; l < whole->residual_stream.size(); ++l) {
        QCOMPARE(whole->residual_stream[l].rows(), (*cached)->residual_stream[l].rows());
        QVERIFY(((*cached)->residual_stream[l] - whole->residual_stream[l]).cwiseAbs().maxCoeff() <=
                kContractTolerance);
    }
    // A cache filled without the residual stream is not reused for a lens.
    ForwardCache plain;
    QVERIFY((*model)->forward(prefix, 0, plain));
    auto refilled = (*model)->forward(ids, 0, plain, true);
    QVERIFY2(refilled, qPrintable(refilled.error()));
    QCOMPARE(int((*refilled)->residual_stream.size()), (*model)->config().num_layers);
    QCOMPARE((*refilled)->residual_stream[0].rows(), Eigen::Index(ids.size()));
}

void TestLogitLens::refusals()
{
    auto model = TransformerModel::load(fixturesPath("models/gpt2-tiny"));
    QVERIFY2(model, qPrintable(model.error()));
    const ModelConfig& config = (*model)->config();
    auto plain = (*model)->forward({1, 2, 3});
    QVERIFY(plain);
    auto lens = LogitLens::compute(config, (*model)->weights(), *plain, LensRequest{});
    QVERIFY(!lens);  // a pre-norm run without its residual stream
    auto run = (*model)->forward({1, 2, 3}, 0, true);
    QVERIFY(run);
    for (int k : {0, 101}) {
        LensRequest request;
        request.top_k = k;
        auto refused = LogitLens::compute(config, (*model)->weights(), *run, request);
        QVERIFY(!refused);
        QVERIFY2(refused.error().contains(QString::number(k)), qPrintable(refused.error()));
    }
    QVERIFY(!LogitMetric::value(config, (*model)->weights(), *run, 3, MetricTokens{5, {}}));

    auto bert = TransformerModel::load(fixturesPath("models/bert-tiny"));
    QVERIFY2(bert, qPrintable(bert.error()));
    auto bert_run = (*bert)->forward({101, 7592, 103, 102});
    QVERIFY(bert_run);
    auto attribution =
        LogitAttribution::compute((*bert)->config(), (*bert)->weights(), *bert_run, 2, MetricTokens{5, {}});
    QVERIFY(!attribution);
    QVERIFY2(attribution.error().contains("pre-norm"), qPrintable(attribution.error()));
}

void TestLogitLens::metricTokens()
{
    const LogitMetric::TokenLookup lookup = [](const QString& token) -> std::optional<int> {
        if (token == QStringLiteral("Ġcat"))
            return 3797;
        if (token == QStringLiteral("##ing"))
            return 2075;
        return std::nullopt;
    };
    auto both = LogitMetric::parse(QStringLiteral("Ġcat,17"), 50257, lookup);
    QVERIFY2(both, qPrintable(both.error()));
    QCOMPARE(both->target, 3797);
    QCOMPARE(*both->foil, 17);
    auto one = LogitMetric::parse(QStringLiteral("##ing"), 50257, lookup);
    QVERIFY(one);
    QVERIFY(!one->foil);
    // Split at the first comma: "," itself cannot be a TARGET, the rest is one FOIL.
    auto unknown = LogitMetric::parse(QStringLiteral("17,cat"), 50257, lookup);
    QVERIFY(!unknown);
    QVERIFY2(unknown.error().contains("'cat'"), qPrintable(unknown.error()));
    QVERIFY(!LogitMetric::parse(QStringLiteral("50257"), 50257, lookup));
    QVERIFY(!LogitMetric::parse(QString(), 50257, lookup));
    QVERIFY(!LogitMetric::parse(QStringLiteral("5,"), 50257, lookup));
    QVERIFY(!LogitMetric::parse(QStringLiteral("-3"), 50257, lookup));
    auto no_tokenizer = LogitMetric::parse(QStringLiteral("cat"), 50257, {});
    QVERIFY(!no_tokenizer);
    QVERIFY2(no_tokenizer.error().contains("'cat'"), qPrintable(no_tokenizer.error()));
}

REGISTER_TEST_SUITE(TestLogitLens, QCoreApplication)
#include "test_logit_lens.moc"
