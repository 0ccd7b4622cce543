// Cross-attention and key padding between the user's choices and the engine
// (AttentionPipeline), and what the JSON report says about them.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/report/JsonReport.h"
#include "tests/support/TestSuite.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace attn;

namespace {

RunSettings smallConfig()
{
    RunSettings config;
    config.d_model = 8;
    config.num_heads = 2;
    return config;
}

LoadedWeights smallWeights(const RunSettings& config)
{
    auto weights = AttentionPipeline::buildWeights(config);
    if (!weights)
        qFatal("%s", qPrintable(weights.error()));
    return std::move(weights).value();
}

}  // namespace

class TestCrossPipeline : public QObject {
    Q_OBJECT

private slots:
    void crossAttentionKeepsBothInputs()
    {
        const RunSettings config = smallConfig();
        auto result = AttentionPipeline::run(config, AttentionPipeline::inputFromSentence("the cat sat", config),
                                             AttentionPipeline::inputFromSentence("le chat est assis", config),
                                             smallWeights(config));
        QVERIFY2(result.ok(), qPrintable(result.error()));
        QVERIFY(result->isCross());
        QCOMPARE(result->seqLen(), 3);
        QCOMPARE(result->keyLen(), 4);
        QCOMPARE(result->keyTokens()[3].text, QStringLiteral("assis"));
        QCOMPARE(result->trace.probabilities[1].rows(), 3);
        QCOMPARE(result->trace.probabilities[1].cols(), 4);
        QCOMPARE(result->trace.output.rows(), 3);
    }

    // An input without tokens is self-attention: the same numbers as the one-input overload.
    void emptySecondInputIsSelfAttention()
    {
        const RunSettings config = smallConfig();
        const LoadedWeights weights = smallWeights(config);
        const AttentionInput input = AttentionPipeline::inputFromSentence("a b c d", config);
        auto self = AttentionPipeline::run(config, input, weights);
        auto empty = AttentionPipeline::run(config, input, AttentionInput{}, weights);
        QVERIFY(self.ok() && empty.ok());
        QVERIFY(!empty->isCross());
        QCOMPARE(empty->keyLen(), 4);
        for (int head = 0; head < 2; ++head)
            QVERIFY(self->trace.probabilities[size_t(head)] == empty->trace.probabilities[size_t(head)]);  // bit for bit
    }

    void causalNeedsSelfAttention()
    {
        RunSettings config = smallConfig();
        config.causal = true;
        auto result =
            AttentionPipeline::run(config, AttentionPipeline::inputFromSentence("a b", config),
                                   AttentionPipeline::inputFromSentence("x y z", config), smallWeights(config));
        QVERIFY(!result.ok());
        QVERIFY2(result.error().contains("self-attention"), qPrintable(result.error()));
    }

    void keyPaddingIsCheckedAgainstTheKeys_data()
    {
        QTest::addColumn<QList<int>>("padded");
        QTest::addColumn<int>("key_len");
        QTest::addColumn<QString>("error");  // empty: accepted
        QTest::addRow("none") << QList<int>{} << 4 << QString();
        QTest::addRow("two keys") << QList<int>{1, 3} << 4 << QString();
        QTest::addRow("repeated") << QList<int>{2, 2} << 4 << QString();
        QTest::addRow("last key") << QList<int>{3} << 4 << QString();
        QTest::addRow("one past the end") << QList<int>{4} << 4 << "key position 4 is outside the 4 keys (0 to 3)";
        QTest::addRow("negative") << QList<int>{-1} << 4 << "key position -1 is outside";
        QTest::addRow("no keys") << QList<int>{0} << 0 << "outside the 0 keys";
    }
    void keyPaddingIsCheckedAgainstTheKeys()
    {
        QFETCH(QList<int>, padded);
        QFETCH(int, key_len);
        QFETCH(QString, error);
        RunSettings config = smallConfig();
        config.padded_keys = padded;
        const auto padding = AttentionPipeline::keyPadding(config, key_len);
        if (!error.isEmpty()) {
            QVERIFY(!padding.ok());
            QVERIFY2(padding.error().contains(error), qPrintable(padding.error()));
            return;
        }
        QVERIFY(padding.ok());
        QCOMPARE(padding->size(), padded.isEmpty() ? size_t(0) : size_t(key_len));
        for (int key = 0; key < int(padding->size()); ++key)
            QCOMPARE(bool((*padding)[size_t(key)]), padded.contains(key));
    }

    // The JSON names the second input's tokens and the queries that see no key.
    void reportSaysWhatWasPadded()
    {
        RunSettings config = smallConfig();
        config.padded_keys = {0, 1};
        auto result = AttentionPipeline::run(config, AttentionPipeline::inputFromSentence("a b c", config),
                                             AttentionPipeline::inputFromSentence("x y", config), smallWeights(config));
        QVERIFY2(result.ok(), qPrintable(result.error()));
        const QJsonObject json = QJsonDocument::fromJson(JsonReport::build(*result)).object();
        QCOMPARE(json["kv_tokens"].toArray(), (QJsonArray{"x", "y"}));
        QCOMPARE(json["config"]["pad_keys"].toArray(), (QJsonArray{0, 1}));
        QCOMPARE(json["empty_rows"].toArray(), (QJsonArray{0, 1, 2}));
        QCOMPARE(json["shapes"]["scores"].toArray(), (QJsonArray{2, 3, 2}));
        QCOMPARE(json["shapes"]["kv_input"].toArray(), (QJsonArray{2, 8}));
    }
};

REGISTER_TEST_SUITE(TestCrossPipeline, QCoreApplication)
#include "test_cross_pipeline.moc"
