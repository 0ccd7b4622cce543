// Cross-attention and key padding in the window, offscreen: the second sentence field, the keys'
// token strip and its clicks, the heatmaps (T_q x T_kv, query labels on y, key labels on x), and
// the causal mask refused with a second sentence. Every check reads what the widgets hold.
#include "core/pipeline/AttentionResult.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/walkthrough/WalkthroughView.h"

#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace attn;

class TestCrossWindow : public attn::test::WindowTest {
    Q_OBJECT

    AttentionController* controller() const { return m_window->controller(); }

    // The centre of chip `index` of a strip, once the strip has painted its chips.
    static QPoint chipCentre(TokenStrip* strip, int index)
    {
        strip->repaint();
        for (int x = 0; x < strip->width(); x += 2) {
            const QPoint point(x, strip->height() / 2);
            if (strip->tokenAt(point) == index) {
                int right = x;
                while (strip->tokenAt(QPoint(right + 1, point.y())) == index)
                    ++right;
                return QPoint((x + right) / 2, point.y());
            }
        }
        return {-1, -1};
    }

private slots:
    void init()
    {
        openWindow();
        if (QTest::currentTestFailed())
            return;
        RunSettings small;
        small.d_model = 16;
        small.num_heads = 2;
        QVERIFY(controller()->setConfig(small));
        m_window->sentenceEdit()->setText(QStringLiteral("the cat sat"));
        controller()->waitForIdle();
    }

    void cleanup() { closeWindow(); }

    void emptyFieldMeansSelfAttention()
    {
        QVERIFY(m_window->kvSentenceEdit()->text().isEmpty());
        const auto result = controller()->result();
        QVERIFY(result && !result->isCross());
        QCOMPARE(result->keyLen(), 3);
        QVERIFY(!m_window->kvTokenStrip()->isVisible());
    }

    void secondSentenceGivesCrossAttention()
    {
        m_window->kvSentenceEdit()->setText(QStringLiteral("le chat est assis"));
        controller()->waitForIdle();
        const auto result = controller()->result();
        QVERIFY(result && result->isCross());
        QCOMPARE(result->seqLen(), 3);
        QCOMPARE(result->keyLen(), 4);
        QCOMPARE(result->trace.probabilities[0].rows(), 3);
        QCOMPARE(result->trace.probabilities[0].cols(), 4);
        QVERIFY(m_window->kvTokenStrip()->isVisible());
        QCOMPARE(m_window->kvTokenStrip()->tokens(), (QStringList{"le", "chat", "est", "assis"}));
        QCOMPARE(m_window->tokenStrip()->tokens(), (QStringList{"the", "cat", "sat"}));

        // The grid and the head view: queries on y (rows), keys on x (columns), each with its labels.
        // A hidden tab catches up when it is shown.
        for (const View view : {View::Grid, View::Head}) {
            m_window->setCurrentView(view);
            QCoreApplication::processEvents();
            const HeatmapPlot* plot =
                view == View::Grid ? m_window->headsGrid()->plot(1) : m_window->headView()->plot();
            QCOMPARE(plot->rowCount(), 3);
            QCOMPARE(plot->columnCount(), 4);
            QCOMPARE(plot->rowLabel(2), QStringLiteral("sat"));
            QCOMPARE(plot->columnLabel(3), QStringLiteral("assis"));
        }
        const Matrix& weights = result->trace.probabilities[0];  // (T_q, T_kv), the head view's head
        QCOMPARE(m_window->headView()->plot()->plottedCell(3, 2), double(weights(2, 3)));

        // Clearing the field returns to self-attention.
        m_window->kvSentenceEdit()->clear();
        controller()->waitForIdle();
        QVERIFY(!controller()->result()->isCross());
        QVERIFY(!m_window->kvTokenStrip()->isVisible());
    }

    // A long query side against a few keys (3,388 x 7): only the queries are merged (4 x 1), so
    // every key keeps its column and label; the plots are not slivers and the title is whole.
    void longQueriesKeepEveryKey()
    {
        m_window->resize(1400, 900);
        m_window->sentenceEdit()->setText(QStringLiteral("the cat sat on ").repeated(847).trimmed());
        m_window->kvSentenceEdit()->setText(QStringLiteral("le chat est assis sur le tapis"));
        controller()->waitForIdle();
        const auto result = controller()->result();
        QVERIFY(result && result->isCross());
        QCOMPARE(result->seqLen(), 3388);
        QCOMPARE(result->keyLen(), 7);
        for (const View view : {View::Grid, View::Head}) {
            m_window->setCurrentView(view);
            HeatmapPlot* plot = view == View::Grid ? m_window->headsGrid()->plot(1) : m_window->headView()->plot();
            QTRY_VERIFY(!plot->reductionPending() && plot->rowCount() == 847);
            QVERIFY(plot->blockShape() == (BlockShape{4, 1}));
            QCOMPARE(plot->columnCount(), 7);
            plot->replotNow();
            QCOMPARE(plot->shownColumnLabels().size(), 7);
            QCOMPARE(plot->shownColumnLabels().last().second, QStringLiteral("tapis"));
            // At least a third of the plot's width: square cells would make it 7 pixels wide.
            const double drawn_width = plot->positionOf(0, 7).x() - plot->positionOf(0, 0).x();
            QVERIFY2(drawn_width >= plot->width() / 3.0, qPrintable(QString::number(drawn_width)));
        }
        const QString title = m_window->headView()->plot()->title();
        QVERIFY2(title.contains(QStringLiteral("4 x 1")) && !title.contains(QChar(0x2026)), qPrintable(title));
    }

    // A click on a key's chip pads that key (hatched in the heatmaps, weight exactly 0); a second
    // click unpads it. With self-attention the sentence's own chips are the keys.
    void clickingAKeyChipTogglesPadding_data()
    {
        QTest::addColumn<QString>("kv_sentence");
        QTest::addRow("self-attention") << QString();
        QTest::addRow("cross-attention") << QStringLiteral("x y z w");
    }
    void clickingAKeyChipTogglesPadding()
    {
        QFETCH(QString, kv_sentence);
        m_window->setCurrentView(View::Grid);
        m_window->kvSentenceEdit()->setText(kv_sentence);
        controller()->waitForIdle();
        TokenStrip* keys = kv_sentence.isEmpty() ? m_window->tokenStrip() : m_window->kvTokenStrip();
        const QPoint chip = chipCentre(keys, 1);
        QVERIFY(chip.x() >= 0);
        QTest::mouseClick(keys, Qt::LeftButton, {}, chip);
        controller()->waitForIdle();
        auto result = controller()->result();
        QCOMPARE(controller()->config().padded_keys, QList<int>{1});
        QVERIFY(keys->isPadded(1));
        QVERIFY(!keys->isPadded(0));
        for (const Matrix& weights : result->trace.probabilities)
            for (int query = 0; query < weights.rows(); ++query)
                QCOMPARE(weights(query, 1), 0.0f);
        const HeatmapPlot* plot = m_window->headsGrid()->plot(0);
        for (int query = 0; query < plot->rowCount(); ++query)
            QVERIFY(plot->isMasked(query, 1));  // drawn hatched, like a causal cell
        QVERIFY(!plot->isMasked(0, 0));

        QTest::mouseClick(keys, Qt::LeftButton, {}, chip);
        controller()->waitForIdle();
        QVERIFY(controller()->config().padded_keys.isEmpty());
        QVERIFY(!keys->isPadded(1));
        QVERIFY(controller()->result()->trace.probabilities[0](0, 1) > 0.0f);
    }

    // Every key padded: each query sees nothing, its row is zeros, and nothing breaks.
    void everyKeyPaddedGivesZeroRows()
    {
        m_window->kvSentenceEdit()->setText(QStringLiteral("x y"));
        controller()->waitForIdle();
        m_window->togglePaddedKey(0);
        m_window->togglePaddedKey(1);
        controller()->waitForIdle();
        const auto result = controller()->result();
        QCOMPARE(result->trace.key_padding, (std::vector<bool>{true, true}));
        for (const Matrix& weights : result->trace.probabilities)
            QVERIFY(weights.isZero(0.0f));
        QVERIFY(result->trace.concat.isZero(0.0f));
    }

    // Switching between one sentence and two lets the padded positions go: they named other tokens.
    void switchingSentencesForgetsPadding()
    {
        m_window->togglePaddedKey(2);
        controller()->waitForIdle();
        QCOMPARE(controller()->config().padded_keys, QList<int>{2});
        m_window->kvSentenceEdit()->setText(QStringLiteral("x y z"));
        controller()->waitForIdle();
        QVERIFY(controller()->config().padded_keys.isEmpty());
        QVERIFY(controller()->result()->trace.key_padding.empty());
    }

    void causalWithASecondSentenceIsFlagged()
    {
        QSignalSpy errors(controller(), &AttentionController::errorChanged);
        RunSettings causal = controller()->config();
        causal.causal = true;
        QVERIFY(controller()->setConfig(causal));
        controller()->waitForIdle();
        const auto self_result = controller()->result();
        m_window->kvSentenceEdit()->setText(QStringLiteral("x y"));
        controller()->waitForIdle();
        QVERIFY(!m_window->kvSentenceEdit()->property("error").toString().isEmpty());
        QCOMPARE(controller()->result(), self_result);  // the last valid picture stays
        bool flagged = false;
        for (const QList<QVariant>& error : errors)
            flagged |= error[0].value<SettingField>() == SettingField::KvSentence && !error[1].toString().isEmpty();
        QVERIFY(flagged);

        causal.causal = false;
        QVERIFY(controller()->setConfig(causal));
        controller()->waitForIdle();
        QVERIFY(controller()->result()->isCross());
        QVERIFY(m_window->kvSentenceEdit()->property("error").toString().isEmpty());
    }

    // The second sentence and the padded keys are remembered like the sentence; a hand-edited
    // settings file with nonsense in the padded keys loses only the nonsense.
    void secondSentenceAndPaddingAreRemembered()
    {
        m_window->kvSentenceEdit()->setText(QStringLiteral("x y z"));
        m_window->togglePaddedKey(2);
        controller()->waitForIdle();
        m_window->saveSettings();
        m_window.reset();
        m_window = std::make_unique<MainWindow>(m_settings.get());
        m_window->controller()->waitForIdle();
        QCOMPARE(m_window->kvSentenceEdit()->text(), QStringLiteral("x y z"));
        QCOMPARE(controller()->config().padded_keys, QList<int>{2});
        const auto result = controller()->result();
        QVERIFY(result && result->isCross());
        QCOMPARE(result->trace.key_padding, (std::vector<bool>{false, false, true}));

        m_window.reset();
        QSettings raw(settingsPath(), QSettings::IniFormat);
        raw.setValue("model/pad_keys", "1,x,-4,,1,99999999999");
        raw.sync();
        m_settings = std::make_unique<AppSettings>(settingsPath());
        QCOMPARE(m_settings->runSettings().padded_keys, QList<int>{1});
    }

    // The walkthrough lists the keys' own tokens for K, V and the weights.
    void walkthroughFollows()
    {
        m_window->kvSentenceEdit()->setText(QStringLiteral("le chat"));
        controller()->waitForIdle();
        m_window->setCurrentView(View::Walkthrough);
        QCoreApplication::processEvents();
        const WalkthroughData& walk = m_window->walkthrough()->walkthrough();
        QVERIFY(!walk.steps.empty());
        const WalkthroughStep& weights = walk.steps[5];  // 6. softmax weights
        QCOMPARE(weights.tables.front().values.rows(), 3);
        QCOMPARE(weights.tables.front().values.cols(), 2);
        QCOMPARE(weights.tables.front().column_labels, (QStringList{"0 le", "1 chat"}));
        QCOMPARE(weights.tables.front().row_labels.front(), QStringLiteral("0 the"));
    }
};

REGISTER_TEST_SUITE(TestCrossWindow, QApplication)
#include "test_cross_window.moc"
