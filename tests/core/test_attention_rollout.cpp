#include "core/analysis/AttentionFlow.h"
#include "core/analysis/AttentionRollout.h"
#include "core/analysis/HeadScores.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace attn;
using namespace attn::testing;

namespace {

QJsonObject readJson(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

// A model fixture's PyTorch attention (L, H, T, T) as the maps a run keeps; causal maps packed.
AttentionMaps fixtureMaps(const QString& model, bool causal)
{
    const QJsonObject expected = readJson(fixturesPath("models/%1/expected.json").arg(model));
    const QJsonArray layers = expected.value("attention").toArray();
    const int num_heads = int(layers.at(0).toArray().size());
    const int seq_len = int(layers.at(0).toArray().at(0).toArray().size());
    AttentionMaps maps(int(layers.size()), num_heads, seq_len, causal);
    for (int l = 0; l < layers.size(); ++l) {
        std::vector<Matrix> heads;
        for (const QJsonValue& head : layers.at(l).toArray()) {
            Matrix weights(seq_len, seq_len);  // (T, T)
            const QJsonArray rows = head.toArray();
            for (int i = 0; i < seq_len; ++i)
                for (int j = 0; j < seq_len; ++j)
                    weights(i, j) = float(rows.at(i).toArray().at(j).toDouble());
            heads.push_back(std::move(weights));
        }
        maps.setLayer(l, std::move(heads));
    }
    return maps;
}

AttentionMaps mapsOf(const std::vector<std::vector<Matrix>>& layers)
{
    AttentionMaps maps(int(layers.size()), int(layers[0].size()), int(layers[0][0].rows()), false);
    for (size_t l = 0; l < layers.size(); ++l)
        maps.setLayer(int(l), std::vector<Matrix>(layers[l]));
    return maps;
}

}  // namespace

class TestAttentionRollout : public QObject {
    Q_OBJECT

private slots:
    void identityAttentionRollsOutToTheIdentity()
    {
        const Matrix identity = Matrix::Identity(5, 5);
        for (double w : {0.0, 0.3, 0.5, 1.0}) {
            auto rollout = AttentionRollout::compute(mapsOf({{identity, identity}}), {HeadFusion::Mean, w, -1});
            QVERIFY(rollout.ok());
            QCOMPARE((*rollout - MatrixD::Identity(5, 5)).cwiseAbs().maxCoeff(), 0.0);
        }
    }

    // Uniform attention without the residual is its own square: it stays uniform through the layers.
    void uniformAttentionStaysUniform()
    {
        const Matrix uniform = Matrix::Constant(4, 4, 0.25f);
        auto rollout = AttentionRollout::compute(mapsOf({{uniform}, {uniform}, {uniform}}), {HeadFusion::Mean, 0.0, -1});
        QVERIFY(rollout.ok());
        QVERIFY((rollout->array() - 0.25).abs().maxCoeff() < 1e-15);
    }

    // With w = 1 only the residual is left: the identity whatever the heads do.
    void residualWeightOneIsTheIdentity()
    {
        const AttentionMaps maps = fixtureMaps(QStringLiteral("gpt2-tiny"), true);
        auto rollout = AttentionRollout::compute(maps, {HeadFusion::Max, 1.0, -1});
        QVERIFY(rollout.ok());
        QVERIFY((*rollout - MatrixD::Identity(maps.seqLen(), maps.seqLen())).cwiseAbs().maxCoeff() < 1e-15);
    }

    void rowsSumToOne()
    {
        for (const char* model : {"gpt2-tiny", "bert-tiny", "llama-tiny"})
            for (HeadFusion fusion : {HeadFusion::Mean, HeadFusion::Max, HeadFusion::Min}) {
                auto rollout = AttentionRollout::compute(fixtureMaps(QLatin1String(model), false), {fusion, 0.2, -1});
                QVERIFY(rollout.ok());
                QVERIFY2(((rollout->rowwise().sum().array() - 1.0).abs() < 1e-12).all(), model);
            }
    }

    void badOptionsAreRefused()
    {
        const AttentionMaps maps = fixtureMaps(QStringLiteral("gpt2-tiny"), true);
        for (double w : {-0.1, 1.5, std::nan("")}) {
            auto rollout = AttentionRollout::compute(maps, {HeadFusion::Mean, w, -1});
            QVERIFY(!rollout.ok());
            QVERIFY(rollout.error().contains("between 0 and 1"));
        }
        auto late = AttentionRollout::compute(maps, {HeadFusion::Mean, 0.5, 2});
        QVERIFY(!late.ok());
        QVERIFY2(late.error().contains("layers 0 to 1"), qPrintable(late.error()));
        QCOMPARE(headFusionFromKey("max"), HeadFusion::Max);
        QVERIFY(!headFusionFromKey("median"));
    }

    // Numbers made by tests/fixtures/analysis/make_analysis_reference.py (numpy, float64) from the
    // fixtures' PyTorch attention; that script checks the contract's form against the authors'
    // compute_joint_attention. The maps are float32, rounded once; the products run in double:
    // agreement within 1e-12 (measured about 1e-16).
    void matchesTheReferenceRollout_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("causal");
        QTest::newRow("gpt2-tiny packed") << "gpt2-tiny" << true;
        QTest::newRow("gpt2-tiny full") << "gpt2-tiny" << false;
        QTest::newRow("bert-tiny") << "bert-tiny" << false;
        QTest::newRow("llama-tiny packed") << "llama-tiny" << true;
    }

    void matchesTheReferenceRollout()
    {
        QFETCH(QString, model);
        QFETCH(bool, causal);
        const AttentionMaps maps = fixtureMaps(model, causal);
        const QJsonObject reference = readJson(fixturesPath("analysis/analysis_reference.json"));
        int checked = 0;
        for (const QJsonValue& value : reference.value("cases").toArray()) {
            const QJsonObject expected = value.toObject();
            if (expected.value("model").toString() != model)
                continue;
            for (const QJsonValue& entry : expected.value("rollout").toArray()) {
                const QJsonObject one = entry.toObject();
                const AttentionRollout::Options options{*headFusionFromKey(one.value("fusion").toString()),
                                                        one.value("residual_weight").toDouble(),
                                                        one.value("last_layer").toInt()};
                auto rollout = AttentionRollout::compute(maps, options);
                QVERIFY(rollout.ok());
                const QJsonArray rows = one.value("matrix").toArray();
                QCOMPARE(rows.size(), qsizetype(maps.seqLen()));
                double worst = 0.0;
                for (int i = 0; i < maps.seqLen(); ++i)
                    for (int j = 0; j < maps.seqLen(); ++j)
                        worst = std::max(worst, std::abs((*rollout)(i, j) - rows.at(i).toArray().at(j).toDouble()));
                QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
                ++checked;
            }
        }
        QCOMPARE(checked, 6);
    }

    // Attention flow against networkx's Edmonds-Karp on the authors' graph (get_adjmat): the same
    // maximum flows from the same double capacities, found along other paths (Dinic here), so
    // sums in another order: within 1e-12.
    void matchesTheReferenceFlow_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("causal");
        QTest::newRow("gpt2-tiny packed") << "gpt2-tiny" << true;
        QTest::newRow("bert-tiny") << "bert-tiny" << false;
    }

    void matchesTheReferenceFlow()
    {
        QFETCH(QString, model);
        QFETCH(bool, causal);
        const AttentionMaps maps = fixtureMaps(model, causal);
        const QJsonObject reference = readJson(fixturesPath("analysis/analysis_reference.json"));
        int checked = 0;
        for (const QJsonValue& value : reference.value("cases").toArray()) {
            if (value.toObject().value("model").toString() != model)
                continue;
            for (const QJsonValue& entry : value.toObject().value("flow").toArray()) {
                const QJsonObject one = entry.toObject();
                auto flow = AttentionFlow::compute(
                    maps, {*headFusionFromKey(one.value("fusion").toString()), one.value("residual_weight").toDouble(), -1});
                QVERIFY(flow.ok());
                const QJsonArray rows = one.value("matrix").toArray();
                double worst = 0.0;
                for (int i = 0; i < maps.seqLen(); ++i)
                    for (int j = 0; j < maps.seqLen(); ++j)
                        worst = std::max(worst, std::abs((*flow)(i, j) - rows.at(i).toArray().at(j).toDouble()));
                QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
                ++checked;
            }
        }
        QCOMPARE(checked, 2);
    }

    // Identity layers carry each token's flow only to itself; over 64 tokens is refused.
    void flowHandCasesAndLimit()
    {
        const Matrix identity = Matrix::Identity(4, 4);
        auto flow = AttentionFlow::compute(mapsOf({{identity}, {identity}}), {});
        QVERIFY(flow.ok());
        QCOMPARE((*flow - MatrixD::Identity(4, 4)).cwiseAbs().maxCoeff(), 0.0);
        const Matrix uniform = Matrix::Constant(65, 65, 1.0f / 65);
        auto refused = AttentionFlow::compute(mapsOf({{uniform}}), {});
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().contains("at most 64 tokens (this input has 65)"), qPrintable(refused.error()));
    }

    // TransformerLens's detect_head ("mul"), with each combination of its two exclusions, on the
    // fixtures' attention and a repeating id pattern; sums in double: within 1e-12.
    void matchesTheReferenceHeadScores_data() { matchesTheReferenceRollout_data(); }

    void matchesTheReferenceHeadScores()
    {
        QFETCH(QString, model);
        QFETCH(bool, causal);
        const AttentionMaps maps = fixtureMaps(model, causal);
        const QJsonObject reference = readJson(fixturesPath("analysis/analysis_reference.json"));
        int checked = 0;
        for (const QJsonValue& value : reference.value("cases").toArray()) {
            const QJsonObject expected = value.toObject();
            if (expected.value("model").toString() != model)
                continue;
            std::vector<int> ids;
            for (const QJsonValue& id : expected.value("token_ids").toArray())
                ids.push_back(id.toInt());
            for (const QJsonValue& entry : expected.value("head_scores").toArray()) {
                const QJsonObject one = entry.toObject();
                const HeadScores::Options options{one.value("exclude_first").toBool(),
                                                  one.value("exclude_current").toBool()};
                const std::vector<HeadScore> scores = HeadScores::compute(maps, ids, options);
                const QJsonArray want = one.value("scores").toArray();
                QCOMPARE(qsizetype(scores.size()), want.size());
                bool some_induction = false;
                for (size_t k = 0; k < scores.size(); ++k) {
                    const QJsonObject w = want.at(qsizetype(k)).toObject();
                    QVERIFY(std::abs(scores[k].previous - w.value("previous").toDouble()) < 1e-12);
                    QVERIFY(std::abs(scores[k].duplicate - w.value("duplicate").toDouble()) < 1e-12);
                    QVERIFY(std::abs(scores[k].induction - w.value("induction").toDouble()) < 1e-12);
                    QVERIFY(std::abs(scores[k].entropy - w.value("entropy").toDouble()) < 1e-12);
                    QVERIFY(std::abs(scores[k].first - w.value("first").toDouble()) < 1e-12);
                    some_induction = some_induction || scores[k].induction > 0.0;
                }
                QVERIFY(some_induction);  // the id pattern repeats: the case is not trivially 0
                ++checked;
            }
        }
        QCOMPARE(checked, 4);
    }

    // Hand case: a head that looks exactly one token back scores 1 as a previous-token head; a
    // head on "A B A B" that looks at the token after the earlier copy scores 1 as induction.
    void handMadeHeadsScoreOne()
    {
        Matrix previous = Matrix::Zero(4, 4);  // (T, T)
        previous(0, 0) = 1.0f;
        for (int i = 1; i < 4; ++i)
            previous(i, i - 1) = 1.0f;
        Matrix induction = Matrix::Zero(4, 4);
        induction(0, 0) = induction(1, 1) = 1.0f;
        induction(2, 1) = 1.0f;  // A at 2: the token after the A at 0 is B at 1
        induction(3, 2) = 1.0f;  // B at 3: the token after the B at 1 is A at 2
        const std::vector<int> ids = {7, 9, 7, 9};
        const std::vector<HeadScore> scores = HeadScores::compute(mapsOf({{previous, induction}}), ids);
        QCOMPARE(scores[0].previous, 0.75);  // row 0 has no previous token
        QCOMPARE(HeadScores::compute(mapsOf({{previous}}), ids, {true, false})[0].previous, 1.0);
        QCOMPARE(scores[1].induction, 0.5);  // rows 2, 3 of 4 rows' weight
        QCOMPARE(HeadScores::compute(mapsOf({{induction}}), ids, {false, true})[0].induction, 1.0);
        QCOMPARE(scores[0].entropy, 0.0);
        QCOMPARE(scores[0].first, 0.5);
    }
};

REGISTER_TEST_SUITE(TestAttentionRollout, NoApplication)
#include "test_attention_rollout.moc"
