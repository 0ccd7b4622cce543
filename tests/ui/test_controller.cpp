// The AttentionController's worker: weight files are read off the GUI thread, once per file and
// layer; results arrive in order and stale ones are dropped; a file that cannot be read keeps the
// weights, config and result in use; side B of the compare view goes through the same worker and
// keeps its weights. Files are copied to a temporary directory so a test can spoil them and show
// they are not read again.
#include "core/analysis/CompareData.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/MemoryPlan.h"
#include "core/pipeline/RunSettings.h"
#include "core/pipeline/SettingField.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "ui/controller/AttentionController.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;
using namespace attn::testing;

namespace {

using ResultPtr = std::shared_ptr<const AttentionResult>;

RunSettings fileConfig(const QString& path, int layer = 0)
{
    RunSettings config;
    config.weight_source = RunSettings::WeightSource::File;
    config.weights_file = path;
    config.layer = layer;
    return config;
}

RunSettings smallRandom()
{
    RunSettings config;
    config.d_model = 16;
    config.num_heads = 2;
    return config;
}

bool spoil(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write("not weights any more") > 0;
}

}  // namespace

class TestController : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_gpt2;  // two layers, d_model 8, 2 heads (metadata)

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_gpt2 = m_dir.filePath("gpt2.safetensors");
        QFile::remove(m_gpt2);
        QVERIFY(QFile::copy(fixturesPath("attention/weights/gpt2_f32.safetensors"), m_gpt2));
        QFile(m_gpt2).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    }

    // A file is never read on the GUI thread: setConfig returns at once with the new config, the
    // weights in use unchanged; the file's weights and result arrive from the worker.
    void weightFileIsReadOnTheWorker()
    {
        AttentionController controller;
        QVERIFY(controller.setConfig(smallRandom()));
        const auto random_weights = controller.weights();
        const ResultPtr random_result = controller.result();
        QVERIFY(random_result);
        QSignalSpy loaded(&controller, &AttentionController::weightsFileLoaded);
        QSignalSpy results(&controller, &AttentionController::resultReady);

        QVERIFY(controller.setConfig(fileConfig(m_gpt2)));
        QVERIFY(controller.isLoadingWeightFile());
        QVERIFY(controller.isBusy());
        QCOMPARE(controller.config().weights_file, m_gpt2);
        QCOMPARE(controller.weights(), random_weights);  // still in use until the file is read
        QCOMPARE(controller.result(), random_result);
        QCOMPARE(results.count(), 0);

        controller.waitForIdle();
        QVERIFY(!controller.isLoadingWeightFile());
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded[0][0].toString(), m_gpt2);
        QCOMPARE(results.count(), 1);
        QCOMPARE(controller.weights()->layer_count, 2);
        QCOMPARE(controller.result()->config.d_model, 8);
        QCOMPARE(controller.result()->config.weights_file, m_gpt2);
    }

    // Keystrokes while a file is read: each waits for the same read (not a read of its own), the
    // newest sentence wins, nothing older follows it; once read, the file is not read again.
    void keystrokesDuringALoadShareOneRead()
    {
        AttentionController controller;
        QVERIFY(controller.setConfig(fileConfig(m_gpt2)));
        QSignalSpy results(&controller, &AttentionController::resultReady);
        QSignalSpy loaded(&controller, &AttentionController::weightsFileLoaded);
        for (const char* sentence : {"one", "one two", "one two three"})
            QVERIFY(controller.setSentence(QString::fromLatin1(sentence)));
        controller.waitForIdle();
        QCOMPARE(loaded.count(), 1);
        QVERIFY(results.count() >= 1);
        int previous_length = 0;
        for (const auto& arguments : results) {
            const int length = arguments[0].value<ResultPtr>()->seqLen();
            QVERIFY(length > previous_length);
            previous_length = length;
        }
        QCOMPARE(controller.result()->seqLen(), 3);

        // The weights are kept: a spoiled file changes nothing for the next keystrokes or for
        // settings that do not change the weights.
        const auto weights = controller.weights();
        QVERIFY(spoil(m_gpt2));
        controller.setAsyncThreshold(0);  // on the worker too
        QVERIFY(controller.setSentence("four words this time"));
        RunSettings causal = controller.config();
        causal.causal = true;
        QVERIFY(controller.setConfig(causal));
        QVERIFY(!controller.isLoadingWeightFile());
        controller.waitForIdle();
        QCOMPARE(controller.weights(), weights);
        QCOMPARE(controller.result()->seqLen(), 4);
        QVERIFY(controller.result()->trace.causal);
    }

    // A file that cannot be read: reported at its field after the worker tried, the config goes
    // back to the one in use (configChanged), the weights and the very same result stay.
    void refusedFileKeepsWhatIsInUse_data()
    {
        QTest::addColumn<int>("layer");
        QTest::addColumn<bool>("spoiled");
        QTest::addColumn<SettingField>("field");
        QTest::newRow("unreadable file") << 0 << true << SettingField::Weights;
        QTest::newRow("layer out of range") << 5 << false << SettingField::Layer;
    }
    void refusedFileKeepsWhatIsInUse()
    {
        QFETCH(int, layer);
        QFETCH(bool, spoiled);
        QFETCH(SettingField, field);
        AttentionController controller;
        QVERIFY(controller.setConfig(fileConfig(m_gpt2)));
        controller.waitForIdle();
        const RunSettings in_use = controller.config();
        const auto weights = controller.weights();
        const ResultPtr result = controller.result();
        if (spoiled) {
            const QString other = m_dir.filePath("other.safetensors");
            QVERIFY(QFile::copy(m_gpt2, other));
            QVERIFY(spoil(other));
            QVERIFY(controller.setConfig(fileConfig(other)));
        } else {
            QVERIFY(controller.setConfig(fileConfig(m_gpt2, layer)));
        }
        QSignalSpy errors(&controller, &AttentionController::errorChanged);
        QSignalSpy configs(&controller, &AttentionController::configChanged);
        QSignalSpy results(&controller, &AttentionController::resultReady);
        QVERIFY(controller.config() != in_use);
        controller.waitForIdle();
        QCOMPARE(errors.count(), 1);
        QCOMPARE(errors[0][0].value<SettingField>(), field);
        QVERIFY2(errors[0][1].toString().contains(spoiled ? "other.safetensors" : "layer 5"),
                 qPrintable(errors[0][1].toString()));
        QCOMPARE(configs.count(), 1);
        QCOMPARE(configs[0][0].value<RunSettings>(), in_use);
        QCOMPARE(controller.config(), in_use);
        QCOMPARE(controller.weights(), weights);
        QCOMPARE(controller.result(), result);
        QCOMPARE(results.count(), 0);
        QVERIFY(!controller.isBusy());
        // The sentence typed next goes on with the weights in use.
        QVERIFY(controller.setSentence("still the same weights"));
        controller.waitForIdle();
        QCOMPARE(controller.result()->seqLen(), 4);
        QCOMPARE(controller.weights(), weights);
    }

    // What was typed while a refused file was read is computed with the weights in use.
    void sentenceTypedDuringARefusedLoadIsShown()
    {
        AttentionController controller;
        QVERIFY(controller.setConfig(smallRandom()));
        const auto weights = controller.weights();
        QVERIFY(spoil(m_gpt2));
        QVERIFY(controller.setConfig(fileConfig(m_gpt2)));
        QVERIFY(controller.setSentence("typed while it loads"));
        controller.waitForIdle();
        QCOMPARE(controller.config(), smallRandom());
        QCOMPARE(controller.weights(), weights);
        QCOMPARE(controller.result()->seqLen(), 4);
        QCOMPARE(controller.result()->config.d_model, 16);
    }

    // Settings refused at once name their field, never an option of the command line.
    void refusedSettingsNameTheirField_data()
    {
        QTest::addColumn<RunSettings>("config");
        QTest::addColumn<SettingField>("field");
        QTest::addColumn<QString>("reason");
        RunSettings heads = smallRandom();
        heads.num_heads = 5;
        QTest::newRow("heads") << heads << SettingField::Heads << "d_model 16 is not divisible by 5 heads";
        RunSettings huge = smallRandom();
        huge.d_model = 60000;
        huge.num_heads = 1;
        QTest::newRow("d_model") << huge << SettingField::DModel << "would not fit";
        RunSettings wide = smallRandom();
        wide.input_dim = 100000;
        QTest::newRow("input dim") << wide << SettingField::InputDim << "not supported";
        RunSettings scale = smallRandom();
        scale.scale = ScaleSetting{ScaleSetting::Mode::Custom, -1.0};
        QTest::newRow("scale") << scale << SettingField::Scale << "finite positive";
    }
    void refusedSettingsNameTheirField()
    {
        QFETCH(RunSettings, config);
        QFETCH(SettingField, field);
        QFETCH(QString, reason);
        AttentionController controller;
        QSignalSpy errors(&controller, &AttentionController::errorChanged);
        QVERIFY(!controller.setConfig(config));
        QCOMPARE(errors.count(), 1);
        QCOMPARE(errors[0][0].value<SettingField>(), field);
        const QString message = errors[0][1].toString();
        QVERIFY2(message.contains(reason), qPrintable(message));
        QVERIFY2(!message.contains("--"), qPrintable(message));
    }

    // Side B under other settings: a weight file is read once, on the worker, and kept while only
    // the causal setting or the input changes; another layer is read anew.
    void variantReadsItsFileOnce()
    {
        AttentionController controller;
        QVERIFY(controller.setConfig(smallRandom()));
        const ResultPtr base = controller.result();
        QSignalSpy ready(&controller, &AttentionController::variantReady);
        QSignalSpy failed(&controller, &AttentionController::variantFailed);
        RunSettings b = fileConfig(m_gpt2);
        controller.requestVariant(b, base, controller.sentence());
        QVERIFY(controller.isBusy());  // a file: on the worker
        QCOMPARE(ready.count(), 0);
        controller.waitForIdle();
        QCOMPARE(ready.count(), 1);
        const ResultPtr first = ready[0][0].value<ResultPtr>();
        QCOMPARE(first->config.weights_file, m_gpt2);
        QCOMPARE(first->seqLen(), base->seqLen());
        QCOMPARE(first->layer_count, 2);

        QVERIFY(spoil(m_gpt2));
        b.causal = true;
        controller.requestVariant(b, base, controller.sentence());
        controller.waitForIdle();
        QCOMPARE(failed.count(), 0);
        QCOMPARE(ready.count(), 2);
        const ResultPtr causal = ready[1][0].value<ResultPtr>();
        QVERIFY(causal->trace.causal);
        QCOMPARE(causal->trace.probabilities[0](0, 1), 0.0f);
        // The same weights: the last query sees every key in both, so its row is the same softmax of
        // the same Q and K, computed twice (sameScoresProbabilityBound).
        const int last = base->seqLen() - 1;
        QCOMPARE(causal->trace.q, first->trace.q);
        QCOMPARE(causal->trace.k, first->trace.k);
        const DoubleMatrix bound =
            sameScoresProbabilityBound(first->trace, 0, causal->trace.probabilities[0], first->trace.probabilities[0]);
        QVERIFY(((causal->trace.probabilities[0].row(last) - first->trace.probabilities[0].row(last))
                     .cast<double>()
                     .cwiseAbs()
                     .array() <= bound.row(last).array())
                    .all());

        // Another layer is other weights: read again, from the spoiled file.
        controller.requestVariant(fileConfig(m_gpt2, 1), base, controller.sentence());
        controller.waitForIdle();
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed[0][0].toString().contains("gpt2.safetensors"), qPrintable(failed[0][0].toString()));
    }

    // Side B is planned before it is computed, as A is: its pass beside A's result on screen. A
    // budget that holds B's pass alone but not A's weights beside it refuses B with one line
    // naming the budget, and nothing is computed; a budget that holds both lets it through.
    void variantIsPlannedBeforeItIsComputed()
    {
        AttentionController controller;
        QStringList words;
        for (int i = 0; i < 600; ++i)
            words << QStringLiteral("w%1").arg(i % 97);
        controller.setSentence(words.join(u' '));
        QVERIFY(controller.setConfig(smallRandom()));
        controller.waitForIdle();
        const ResultPtr base = controller.result();
        QVERIFY(base);
        QCOMPARE(base->seqLen(), 600);
        const std::int64_t pass =
            MemoryPlan::estimate(MemoryPlan::forPass(600, 0, controller.weights()->weights, TraceDetail::Probabilities))
                .total();
        const std::int64_t a_weights = std::int64_t(sizeof(float)) * 2 * 600 * 600;  // A's two heads
        QSignalSpy ready(&controller, &AttentionController::variantReady);
        QSignalSpy failed(&controller, &AttentionController::variantFailed);
        RunSettings b = smallRandom();
        b.seed = 7;
        controller.setMemoryBudget(pass + a_weights / 2);
        controller.requestVariant(b, base, controller.sentence());
        controller.waitForIdle();
        QCOMPARE(ready.count(), 0);
        QCOMPARE(failed.count(), 1);
        const QString message = failed[0][0].toString();
        QVERIFY2(message.contains("Memory budget") && !message.contains('\n'), qPrintable(message));

        controller.setMemoryBudget(pass + 4 * a_weights);
        controller.requestVariant(b, base, controller.sentence());
        controller.waitForIdle();
        QCOMPARE(ready.count(), 1);
        QCOMPARE(ready[0][0].value<ResultPtr>()->config.seed, std::uint64_t(7));
    }

    // Side B of a long input takes the long route as A does (one head kept): head B recomputed from
    // it is the same as from a pass of the same settings that keeps every head.
    void variantOfALongInputTakesTheLongRoute()
    {
        AttentionController controller;
        controller.setLongRouteBytes(0);
        controller.setPictureCellLimit(std::int64_t(1024) * 1024);  // as the window's plots set it
        QStringList words;
        for (int i = 0; i < 1100; ++i)
            words << QStringLiteral("w%1").arg(i % 97);
        controller.setSentence(words.join(u' '));
        QVERIFY(controller.setConfig(smallRandom()));
        controller.waitForIdle();
        const ResultPtr base = controller.result();
        QVERIFY(base && !base->trace.keepsEveryHead());
        QSignalSpy ready(&controller, &AttentionController::variantReady);
        RunSettings b = smallRandom();
        b.causal = true;
        controller.requestVariant(b, base, controller.sentence());
        controller.waitForIdle();
        QCOMPARE(ready.count(), 1);
        const ResultPtr variant = ready[0][0].value<ResultPtr>();
        QVERIFY(!variant->trace.keepsEveryHead());
        QVERIFY(variant->config.causal);
        auto full = CompareData::runVariant(*base, b, *controller.weights(), controller.sentence());
        QVERIFY(full.ok() && full->trace.keepsEveryHead());
        // The same weights, Q and K; the softmax computed twice (sameScoresProbabilityBound).
        QCOMPARE(variant->trace.q, full->trace.q);
        QCOMPARE(variant->trace.k, full->trace.k);
        const Matrix& kept = *variant->trace.headProbabilities(1);
        const DoubleMatrix bound = sameScoresProbabilityBound(full->trace, 1, kept, full->trace.probabilities[1]);
        const QString beyond = beyondBound("head 1", kept, full->trace.probabilities[1], bound);
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    // Many requests for B on the worker: only the newest is answered.
    void variantStaleRequestsAreDropped()
    {
        AttentionController controller;
        QVERIFY(controller.setConfig(smallRandom()));
        const ResultPtr base = controller.result();
        controller.setAsyncThreshold(0);
        QSignalSpy ready(&controller, &AttentionController::variantReady);
        for (int seed = 1; seed <= 5; ++seed) {
            RunSettings b = smallRandom();
            b.seed = std::uint64_t(seed);
            controller.requestVariant(b, base, controller.sentence());
        }
        controller.waitForIdle();
        QVERIFY(ready.count() >= 1);
        std::uint64_t previous = 0;
        for (const auto& arguments : ready) {
            const std::uint64_t seed = arguments[0].value<ResultPtr>()->config.seed;
            QVERIFY(seed > previous);
            previous = seed;
        }
        QCOMPARE(previous, std::uint64_t(5));
    }
};

REGISTER_TEST_SUITE(TestController, QApplication)
#include "test_controller.moc"
