// The window as a new user meets it, offscreen, at a common laptop size (1000 x 700): what a user
// reads there is whole (Compare's heads large enough to read, also at the smallest size, its caption not cut, All
// heads' header keeping the mask), every token labelled where the cells have room, and Alt with
// a menu's letter opens that menu. Every check
// reads the widgets of a real MainWindow.
#include "core/pipeline/AttentionResult.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/shell/AboutText.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/KeyHiding.h"
#include "ui/shell/LayerChooser.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/compare/CompareFigure.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/model/ModelGridCanvas.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/qk/QueryKeyView.h"
#include "ui/views/rollout/RolloutView.h"
#include "ui/views/walkthrough/WalkthroughView.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QHelpEvent>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QPainter>
#include <QScrollArea>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <QToolTip>

using namespace attn;

class TestNewUserWindow : public attn::test::WindowTest {
    Q_OBJECT

    AttentionController* controller() const { return m_window->controller(); }

    // Compare's A and B (and A - B when it is drawn) with cells of `side` pixels or more for 13
    // tokens; the caption whole in the figure's view.
    void checkCompareIsReadable(double side)
    {
        CompareFigure* figure = m_window->viewTabs()->compareView()->figure();
        QTRY_VERIFY(figure->plotA()->rowCount() == 13);
        const bool row = figure->arrangement() == CompareFigure::Arrangement::Row;
        QCOMPARE(figure->plotDifference()->isVisible(), row);
        for (HeatmapPlot* plot : {figure->plotA(), figure->plotB(), figure->plotDifference()}) {
            if (!plot->isVisible())
                continue;
            plot->replotNow();
            const double drawn = plot->positionOf(0, 13).x() - plot->positionOf(0, 0).x();
            QVERIFY2(drawn >= side, qPrintable(QString::number(drawn)));
        }
        auto* caption = figure->findChild<QLabel*>();
        QVERIFY(caption);
        QTRY_VERIFY(caption->text().contains(QStringLiteral("Jensen")));
        if (!row)
            QVERIFY(caption->text().contains(QStringLiteral("A \u2212 B is drawn in a larger window")));
        QCoreApplication::processEvents();
        auto* scroll = figure->findChild<QScrollArea*>();
        const QRect shown = scroll->viewport()->rect();
        const QRect where(caption->mapTo(scroll->viewport(), QPoint(0, 0)), caption->size());
        QVERIFY2(
            shown.contains(where),
            qPrintable(QStringLiteral("caption at y %1..%2 of a viewport of %3")
                           .arg(where.top())
                           .arg(where.bottom())
                           .arg(shown.height()) +
                       QStringLiteral(", x %1..%2 of %3").arg(where.left()).arg(where.right()).arg(shown.width())));
    }

private slots:
    void init()
    {
        openWindow(QSize(1000, 700));
        if (QTest::currentTestFailed())
            return;
        m_window->settingsPanel()->causalBox()->setChecked(true);
        controller()->waitForIdle();
    }

    void cleanup() { closeWindow(); }

    // A and B's 13 x 13 cells at least 100 pixels a side (they were about 70, and 40 under a
    // desktop's larger fonts), A - B beside them at that size or left out with the caption saying
    // so, and the caption in view.
    void compareIsReadableAtLaptopSize()
    {
        m_window->setCurrentView(View::Compare);
        checkCompareIsReadable(100);
    }

    // At the window's smallest size A and B are still read (they were about 60 pixels): the
    // tables fold away, the two heads share the figure, the colour bar beside them.
    void compareIsReadableAtMinimumSize()
    {
        m_window->resize(m_window->minimumSizeHint().expandedTo(m_window->minimumSize()));
        m_window->setCurrentView(View::Compare);
        QCoreApplication::processEvents();
        CompareView* compare = m_window->viewTabs()->compareView();
        QVERIFY(compare->tablesFolded());
        QCOMPARE(compare->figure()->arrangement() == CompareFigure::Arrangement::Row, false);
        checkCompareIsReadable(100);
        for (HeatmapPlot* plot : {compare->figure()->plotA(), compare->figure()->plotB()})
            QVERIFY(plot->colorBarLabel().contains(QStringLiteral("weight")));
    }

    // The header is elided at this width: the mask comes before what is cut.
    void allHeadsHeaderKeepsTheMask()
    {
        m_window->setCurrentView(View::Grid);
        const QString header = m_window->headsGrid()->caption();
        const int causal = header.indexOf(QStringLiteral("causal"));
        QVERIFY2(causal > 0, qPrintable(header));
        QVERIFY2(causal < header.indexOf(QStringLiteral("d_model")), qPrintable(header));
    }

    // Narrower, the header drops the weights and sizes but never the mask: every shorter form
    // keeps "· causal"; a narrow head's title is "h2", not "hea\u2026".
    void allHeadsShortensSensibly()
    {
        m_window->setCurrentView(View::Grid);
        HeadsGrid* grid = m_window->headsGrid();
        const QStringList forms = grid->shortCaptions().split(QChar(0x9C));
        QVERIFY2(forms.size() >= 3, qPrintable(forms.join(u'|')));
        QCOMPARE(forms.first(), grid->caption());
        for (const QString& form : forms)
            QVERIFY2(form.contains(QStringLiteral(" · causal")), qPrintable(form));
        QVERIFY(forms.last().size() < 40);
        m_window->resize(m_window->minimumSizeHint().expandedTo(m_window->minimumSize()));
        m_window->settingsPanel()->headsBox()->setValue(64);
        controller()->waitForIdle();
        QCoreApplication::processEvents();
        HeatmapPlot* plot = grid->plot(2);
        QVERIFY(plot);
        plot->replotNow();
        QCOMPARE(plot->title(), QStringLiteral("h2"));
    }

    // The Model tab with a small GPT-2: at 1000 x 700 thumbnails of about 120 pixels (they were
    // about 75 under a six-line hint) and the table showing the layer's four heads; at 1400 x 900
    // the same four rows (it showed one and a half); at the smallest size two rows at least, the
    // hint hidden rather than wrapped.
    void modelTabGivesGridAndTableTheirRoom()
    {
        m_window->sentenceEdit()->setText(QStringLiteral("The cat sat on the mat because it was tired."));
        m_window->openModelFolder(attn::testing::modelFixture(QStringLiteral("gpt2-tiny")));
        controller()->waitForIdle();
        m_window->setCurrentView(View::Model);
        ModelView* model = m_window->viewTabs()->modelView();
        const auto rowsShown = [model] {
            QTableWidget* table = model->metricsTable();
            return table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
        };
        const auto side = [model] { return model->canvas()->gridPainter().layoutFor(model->canvas()->size()).side; };
        QTRY_VERIFY(model->headTablesReady());
        QCoreApplication::processEvents();
        QVERIFY2(side() >= 110, qPrintable(QString::number(side())));
        QVERIFY2(rowsShown() >= 4, qPrintable(QString::number(rowsShown())));

        m_window->resize(1400, 900);
        QCoreApplication::processEvents();
        QVERIFY2(rowsShown() >= 4, qPrintable(QString::number(rowsShown())));
        QVERIFY2(side() >= 200, qPrintable(QString::number(side())));
        QVERIFY(model->hintLabel()->isVisible());

        m_window->resize(m_window->minimumSizeHint().expandedTo(m_window->minimumSize()));
        QCoreApplication::processEvents();
        QVERIFY2(rowsShown() >= 2, qPrintable(QString::number(rowsShown())));
        QVERIFY2(side() >= 50, qPrintable(QString::number(side())));  // about 32 before
        QVERIFY(!model->hintLabel()->isVisible());
    }

    // The Q-K tab has its own head chooser (and with a model a layer box), both the window's
    // choice; a point's hover text names its token, position and side, not the tab's general hint.
    void queryKeyTabChoosesHeadAndLayer()
    {
        m_window->sentenceEdit()->setText(QStringLiteral("The cat sat on the mat."));
        m_window->openModelFolder(attn::testing::modelFixture(QStringLiteral("gpt2-tiny")));
        controller()->waitForIdle();
        m_window->setCurrentView(View::QueryKey);
        QCoreApplication::processEvents();
        QueryKeyView* qk = m_window->viewTabs()->queryKeyView();
        QVERIFY(qk->headBox()->isVisible());
        QVERIFY(qk->layerBox()->isVisible());
        QCOMPARE(qk->headBox()->count(), controller()->result()->numHeads());
        qk->headBox()->setCurrentIndex(2);
        emit qk->headBox()->activated(2);
        QCOMPARE(qk->painter().head(), 2);
        QCOMPARE(m_window->viewTabs()->headView()->head(), 2);
        qk->layerBox()->setValue(1);
        controller()->waitForIdle();
        QTRY_COMPARE(controller()->selectedLayer(), 1);
        QTRY_COMPARE(controller()->result()->config.layer, 1);
        QCOMPARE(m_window->layerChooser()->layer(), 1);
        QCOMPARE(qk->layerBox()->value(), 1);
        QCOMPARE(qk->headBox()->currentIndex(), 2);

        const QPointF point = qk->painter().position(1, true, qk->plotArea());
        QHelpEvent hover(QEvent::ToolTip, point.toPoint(), qk->mapToGlobal(point.toPoint()));
        QCoreApplication::sendEvent(qk, &hover);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().startsWith(QStringLiteral("key of '")), qPrintable(QToolTip::text()));
        QVERIFY2(QToolTip::text().endsWith(QStringLiteral("position 1")), qPrintable(QToolTip::text()));
        QToolTip::hideText();
    }

    // A hidden key is a token: it stays hidden where that token goes when the sentence changes,
    // is forgotten when the token is gone, and every hidden key is forgotten when a model opens.
    void hiddenKeysFollowTheirTokens()
    {
        HeatmapMenu* menu = m_window->heatmapMenu();
        m_window->sentenceEdit()->setText(QStringLiteral("the cat sat on the mat"));
        controller()->waitForIdle();
        m_window->toggleHiddenKey(1);  // "cat"
        m_window->toggleHiddenKey(4);  // the second "the"
        QCOMPARE(menu->hiddenKeys(), (QList<int>{1, 4}));
        m_window->sentenceEdit()->setText(QStringLiteral("a big cat sat on the mat the end"));
        controller()->waitForIdle();
        QTRY_COMPARE(menu->hiddenKeys(), (QList<int>{2, 7}));  // "cat", the second "the"
        QCOMPARE(m_window->viewTabs()->shownHiddenKeys()[2], true);
        m_window->sentenceEdit()->setText(QStringLiteral("a big dog sat on the mat"));
        controller()->waitForIdle();
        QTRY_COMPARE(menu->hiddenKeys(), QList<int>{});  // no cat, one "the"
        QVERIFY(m_window->keyHiding()->hiddenTokens().isEmpty());
        m_window->sentenceEdit()->setText(QStringLiteral("the cat sat on the mat"));
        controller()->waitForIdle();
        QCOMPARE(menu->hiddenKeys(), QList<int>{});  // forgotten, not waiting

        m_window->toggleHiddenKey(2);
        QCOMPARE(menu->hiddenKeys(), QList<int>{2});
        m_window->openModelFolder(attn::testing::modelFixture(QStringLiteral("gpt2-tiny")));
        controller()->waitForIdle();
        QTRY_VERIFY(controller()->hasModel());
        QTRY_COMPARE(menu->hiddenKeys(), QList<int>{});
        QVERIFY(!m_window->viewTabs()->shownHiddenKeys()[2]);
    }

    // A bad token id is said once, under the field, as the ids' error: no "Sentence:" banner.
    void tokenIdErrorIsNotASentenceBanner()
    {
        m_window->sentenceEdit()->setText(QStringLiteral("The cat sat."));
        m_window->openModelFolder(attn::testing::modelFixture(QStringLiteral("gpt2-tiny")));
        controller()->waitForIdle();
        m_window->setTokenIdsInput(true);
        m_window->setTokenIds(QStringLiteral("464, 3797, x"));
        controller()->waitForIdle();
        QCoreApplication::processEvents();
        const QString shown = m_window->sentenceError()->text();
        QVERIFY2(!m_window->sentenceError()->isHidden() && !shown.isEmpty(), qPrintable(shown));
        QVERIFY2(!shown.contains(QStringLiteral("Sentence")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("previous input")), qPrintable(shown));
        QVERIFY2(
            m_window->messageBar()->isHidden() || !m_window->messageBar()->text().contains(QStringLiteral("Sentence")),
            qPrintable(m_window->messageBar()->text()));
    }

    // 13 tokens in a 1400 x 900 window: every token labelled on both axes of every head (every
    // other one was, though the cells had room), and the heads right under the header.
    void everyTokenLabelledWhenThereIsRoom()
    {
        m_window->resize(1400, 900);
        m_window->sentenceEdit()->setText(QStringLiteral("The cat sat on the mat because it was very tired today."));
        controller()->waitForIdle();
        m_window->setCurrentView(View::Grid);
        QCoreApplication::processEvents();
        for (int head = 0; head < m_window->headsGrid()->headCount(); ++head) {
            HeatmapPlot* plot = m_window->headsGrid()->plot(head);
            QTRY_COMPARE(plot->rowCount(), 13);
            plot->replotNow();
            QCOMPARE(plot->shownRowLabels().size(), 13);
            QCOMPARE(plot->shownColumnLabels(), plot->shownRowLabels());
        }
        const QPoint head_top = m_window->headsGrid()->plot(0)->mapTo(m_window->headsGrid(), QPoint(0, 0));
        QVERIFY2(head_top.y() < 60, qPrintable(QString::number(head_top.y())));
    }

    // Rollout's bars: a decoder's last token and an encoder's [CLS], as --view rollout draws,
    // following a longer sentence and chosen again when another model opens; its controls are
    // off with no model.
    void rolloutStartsWhereTheModelSummarises()
    {
        RolloutView* rollout = m_window->viewTabs()->rolloutView();
        QSpinBox* token = rollout->queryBox();
        QVERIFY(!token->isEnabled());
        m_window->setCurrentView(View::Rollout);
        m_window->sentenceEdit()->setText(QStringLiteral("The cat sat on the mat."));
        m_window->openModelFolder(attn::testing::modelFixture(QStringLiteral("gpt2-tiny")));
        controller()->waitForIdle();
        QTRY_VERIFY(token->isEnabled());
        const int tokens = controller()->result()->seqLen();
        QCOMPARE(token->value(), tokens - 1);
        QCOMPARE(rollout->painter().query(), tokens - 1);
        m_window->sentenceEdit()->setText(QStringLiteral("The cat sat on the mat because it was tired."));
        controller()->waitForIdle();
        QTRY_COMPARE(token->value(), controller()->result()->seqLen() - 1);
        QVERIFY(controller()->result()->seqLen() > tokens);

        m_window->openModelFolder(attn::testing::modelFixture(QStringLiteral("bert-tiny")));
        controller()->waitForIdle();
        QTRY_COMPARE(token->value(), 0);
        QCOMPARE(rollout->painter().query(), 0);

        m_window->closeModel();
        controller()->waitForIdle();
        QTRY_VERIFY(!token->isEnabled());
    }

    // A whole model's layer: the walkthrough says where its rows come from (GPT-2 adds learned
    // positions), not "no positional encoding"; an exported grid has no frame around the current
    // head (the window's state).
    void modelLayerWalkthroughAndExportedGrid()
    {
        m_window->sentenceEdit()->setText(QStringLiteral("The cat sat on the mat."));
        m_window->openModelFolder(attn::testing::modelFixture(QStringLiteral("gpt2-tiny")));
        controller()->waitForIdle();
        m_window->setCurrentView(View::Walkthrough);
        QCoreApplication::processEvents();
        QTRY_VERIFY(!m_window->walkthrough()->walkthrough().steps.empty());
        const QString formula = m_window->walkthrough()->walkthrough().steps[0].formula;
        QVERIFY2(formula.contains(QStringLiteral("learned position")), qPrintable(formula));

        m_window->setCurrentView(View::Grid);
        QCoreApplication::processEvents();
        HeadsGrid* grid = m_window->headsGrid();
        QTRY_COMPARE(grid->plot(0)->rowCount(), controller()->result()->seqLen());
        grid->setCurrentHead(0);
        QImage picture(QSize(900, 700), QImage::Format_RGB32);
        picture.fill(Qt::white);
        QPainter painter(&picture);
        grid->render(&painter, QRectF(0, 0, 900, 700));
        painter.end();
        int frame_blue = 0;  // the current head's frame: #1e88e5
        for (int y = 0; y < picture.height(); ++y)
            for (int x = 0; x < picture.width(); ++x) {
                const QColor colour(picture.pixel(x, y));
                frame_blue += colour.red() < 60 && colour.green() > 110 && colour.green() < 160 && colour.blue() > 200;
            }
        QVERIFY2(frame_blue < 20, qPrintable(QString::number(frame_blue)));
    }

    // Alt+H opens Help, Alt+M Model: no field's label takes a menu's letter, and no two labels
    // of the settings panel and the tabs share one (Alt+D went from d_model to Seed and back).
    void mnemonicsLeaveTheMenusTheirLetters()
    {
        QSet<QChar> menus;
        for (QAction* menu : m_window->menuBar()->actions()) {
            const QKeySequence key = QKeySequence::mnemonic(menu->text());
            QVERIFY2(!key.isEmpty(), qPrintable(menu->text()));
            menus.insert(key.toString().back().toLower());
        }
        QHash<QChar, QString> taken;
        auto check = [&](const QString& text) {
            const QKeySequence key = QKeySequence::mnemonic(text);
            if (key.isEmpty())
                return;
            const QChar letter = key.toString().back().toLower();
            QVERIFY2(!menus.contains(letter), qPrintable(text + QStringLiteral(" takes a menu's Alt+") + letter));
            QVERIFY2(!taken.contains(letter), qPrintable(text + QStringLiteral(" and ") + taken.value(letter)));
            taken.insert(letter, text);
        };
        for (QLabel* label : m_window->findChildren<QLabel*>())
            if (label->buddy())
                check(label->text());
        for (QAbstractButton* button : m_window->findChildren<QAbstractButton*>())
            check(button->text());
        QVERIFY2(taken.size() >= 10, qPrintable(QString::number(taken.size())));  // the panel's and One head's
    }

    // Help › About offers no link to the placeholder home page a build without a real one has,
    // and links a real one.
    void aboutLinksNoPlaceholder()
    {
        const QString placeholder = aboutHtml(QStringLiteral("https://attention-lab.invalid/"));
        QVERIFY(!placeholder.contains(QLatin1String("href")));
        QVERIFY(!placeholder.contains(QLatin1String(".invalid")));
        QVERIFY(placeholder.contains(QLatin1String("docs/")));
        const QString real = aboutHtml(QStringLiteral("https://example.org/attention-lab/"));
        QVERIFY(real.contains(QLatin1String("<a href='https://example.org/attention-lab/'>")));
    }
};

REGISTER_TEST_SUITE(TestNewUserWindow, QApplication)
#include "test_new_user_window.moc"
