// Keystroke to redrawn grid, in the real window (offscreen): set the sentence, then process
// events until every head of the grid has replotted. d_model 512, 8 heads. Also the Lens tab's
// first row after a keystroke on GPT-2 small's shape.
// Run: QT_QPA_PLATFORM=offscreen build/tests/bench/window_bench [-iterations N]
#include "core/base/SplitMix64.h"
#include "core/lens/LensResult.h"
#include "core/model/ModelRun.h"
#include "tests/support/RandomModel.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/lens/LensView.h"
#include "ui/views/model/ModelGridCanvas.h"
#include "ui/views/model/ModelView.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;

namespace {

QString sentenceOf(int tokens, const QString& last)
{
    QStringList words;
    for (int i = 0; i < tokens - 1; ++i)
        words.append(QStringLiteral("w%1").arg(i % 97));
    words.append(last);
    return words.join(QLatin1Char(' '));
}

// A GPT-2-small-shaped run (12 layers x 12 heads, causal) with random rows that sum to 1.
std::shared_ptr<const ModelRun> randomModelRun(int seq_len, std::uint64_t seed)
{
    constexpr int kLayers = 12;
    constexpr int kHeads = 12;
    auto run = std::make_shared<ModelRun>();
    run->token_ids.assign(size_t(seq_len), 0);
    run->attention = AttentionMaps(kLayers, kHeads, seq_len, true);
    SplitMix64 random(seed);
    for (int layer = 0; layer < kLayers; ++layer) {
        std::vector<Matrix> heads;
        for (int head = 0; head < kHeads; ++head) {
            Matrix weights = Matrix::Zero(seq_len, seq_len);  // (T, T)
            for (int i = 0; i < seq_len; ++i) {
                for (int j = 0; j <= i; ++j)
                    weights(i, j) = float(random.uniform());
                weights.row(i).head(i + 1) /= weights.row(i).head(i + 1).sum();
            }
            heads.push_back(std::move(weights));
        }
        run->attention.setLayer(layer, std::move(heads));
    }
    return run;
}

}  // namespace

class WindowBench : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<MainWindow> m_window;

private slots:
    void initTestCase()
    {
        m_settings = std::make_unique<AppSettings>(m_dir.filePath("settings.ini"));
        m_window = std::make_unique<MainWindow>(m_settings.get());
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void keystrokeToRedrawnGrid_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<bool>("causal");  // causal: half of every head masked (hatched)
        QTest::addRow("T=16") << 16 << false;
        QTest::addRow("T=512") << 512 << false;
        QTest::addRow("T=512 causal") << 512 << true;
    }
    void keystrokeToRedrawnGrid()
    {
        QFETCH(int, tokens);
        QFETCH(bool, causal);
        RunSettings config = m_window->controller()->config();
        config.causal = causal;
        QVERIFY(m_window->controller()->setConfig(config));
        const QString a = sentenceOf(tokens, QStringLiteral("cat"));
        const QString b = sentenceOf(tokens, QStringLiteral("cab"));
        HeadsGrid* grid = m_window->headsGrid();
        bool replotted = false;
        auto connection = connect(grid, &HeadsGrid::replotted, this, [&] { replotted = true; });
        m_window->sentenceEdit()->setText(a);
        m_window->controller()->waitForIdle();
        QCoreApplication::processEvents();
        int i = 0;
        QBENCHMARK
        {
            replotted = false;
            m_window->sentenceEdit()->setText(++i % 2 ? b : a);
            while (!replotted)
                QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        }
        disconnect(connection);
        QCOMPARE(m_window->controller()->result()->seqLen(), tokens);
        QCOMPARE(grid->plot(0)->plottedKeySize(), tokens);
        QCOMPARE(grid->plot(0)->hasMask(), causal);
        config.causal = false;
        QVERIFY(m_window->controller()->setConfig(config));
        m_window->controller()->waitForIdle();
    }

    // The Model tab of the window redrawn for a new run: 144 heads of GPT-2 small, each reduced to
    // its thumbnail's pixels from the compact maps, then painted (setModelRun + a synchronous repaint).
    void modelTabRedraw_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addRow("144 heads T=32") << 32;
        QTest::addRow("144 heads T=256") << 256;
        QTest::addRow("144 heads T=1024") << 1024;
    }
    void modelTabRedraw()
    {
        QFETCH(int, tokens);
        const std::shared_ptr<const ModelRun> runs[2] = {randomModelRun(tokens, 1), randomModelRun(tokens, 2)};
        ViewTabs* tabs = m_window->viewTabs();
        tabs->setCurrentView(View::Model);
        ModelView* view = tabs->modelView();
        view->setModelRun(runs[0], {});
        QCoreApplication::processEvents();
        int i = 0;
        QBENCHMARK
        {
            view->setModelRun(runs[++i % 2], {});
            view->canvas()->repaint();
        }
        qInfo("thumbnails of %d px for T = %d", view->canvas()->thumbnailRect(0, 0).width(), tokens);
        QCOMPARE(view->canvas()->gridPainter().numLayers() * view->canvas()->gridPainter().numHeads(), 144);
        tabs->setCurrentView(View::Grid);
    }

    // The GUI thread's part of a new run on the Model tab with heads sorted and framed by their
    // induction score and the table listing every layer: setModelRun and the events it posts,
    // without waiting for work handed to other threads.
    void modelTabScoresOnTheGuiThread_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addRow("144 heads T=256 sorted") << 256;
        QTest::addRow("144 heads T=1024 sorted") << 1024;
    }
    void modelTabScoresOnTheGuiThread()
    {
        QFETCH(int, tokens);
        const std::shared_ptr<const ModelRun> runs[2] = {randomModelRun(tokens, 1), randomModelRun(tokens, 2)};
        ViewTabs* tabs = m_window->viewTabs();
        tabs->setCurrentView(View::Model);
        ModelView* view = tabs->modelView();
        view->orderBox()->setCurrentIndex(view->orderBox()->findData(QStringLiteral("induction")));
        view->marksBox()->setCurrentIndex(view->marksBox()->findData(QStringLiteral("induction")));
        view->tableScopeBox()->setCurrentIndex(1);
        emit view->tableScopeBox()->activated(1);
        view->setModelRun(runs[0], {});
        QCoreApplication::processEvents();
        int i = 0;
        QBENCHMARK
        {
            view->setModelRun(runs[++i % 2], {});
            QCoreApplication::processEvents();
        }
        view->orderBox()->setCurrentIndex(0);
        view->marksBox()->setCurrentIndex(0);
        view->tableScopeBox()->setCurrentIndex(0);
        emit view->tableScopeBox()->activated(0);
        tabs->setCurrentView(View::Grid);
    }

    // Where the time of one keystroke goes (printed, not asserted).
    void breakdown()
    {
        for (int tokens : {16, 512}) {
            HeadsGrid* grid = m_window->headsGrid();
            bool replotted = false;
            auto connection = connect(grid, &HeadsGrid::replotted, this, [&] { replotted = true; });
            for (int i = 0; i < 6; ++i) {
                replotted = false;
                QElapsedTimer timer;
                timer.start();
                m_window->sentenceEdit()->setText(
                    sentenceOf(tokens, i % 2 ? QStringLiteral("cat") : QStringLiteral("cab")));
                const double set_text = timer.nsecsElapsed() / 1e6;
                m_window->controller()->waitForIdle();
                const double computed = timer.nsecsElapsed() / 1e6;
                while (!replotted)
                    QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
                const double total = timer.nsecsElapsed() / 1e6;
                qInfo(
                    "T=%d: setText returned %.1f ms, result shown %.1f ms (forward pass %.1f ms), grid replotted %.1f "
                    "ms",
                    tokens, set_text, computed, m_window->controller()->result()->compute_ms, total);
            }
            disconnect(connection);
        }
    }

    // Keystroke to the first row of the Lens tab: GPT-2 small's shape (random weights, written as
    // a checkpoint folder of 498 MB and opened as a user opens one) at T = 32, the token ids
    // changed in the window, until the tab has its first block of the lens (the last position
    // first): the model pass with its residual stream, then the lens on its worker, through the
    // controller and LensLink as on screen. Goal: 100 ms.
    void keystrokeToFirstLensRow()
    {
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        QVERIFY2(testing::writeGpt2Folder(folder.path(), testing::gpt2SmallConfig(), 11),
                 "could not write the checkpoint");
        m_window->openModelFolder(folder.path());
        m_window->controller()->waitForIdle();
        QVERIFY(m_window->controller()->hasModel());
        const auto ids = [](int last) {
            QStringList list;
            for (int i = 0; i < 31; ++i)
                list << QString::number((i * 397 + 11) % 50000);
            list << QString::number(last);
            return list.join(QStringLiteral(", "));
        };
        auto* lens = dynamic_cast<LensView*>(m_window->viewTabs()->page(View::Lens));
        QVERIFY(lens);
        m_window->setTokenIds(ids(262));
        m_window->setCurrentView(View::Lens);
        m_window->controller()->waitForIdle();
        QTRY_VERIFY_WITH_TIMEOUT(lens->upToDate(), 60000);
        const auto firstRowIn = [lens](const LensResult* before) {
            const auto& result = lens->painter().result();
            return result && result.get() != before && result->seq_len == 32 && result->done.back();
        };
        int i = 0;
        QBENCHMARK
        {
            const LensResult* before = lens->painter().result().get();
            m_window->setTokenIds(ids(++i % 2 ? 3797 : 262));
            while (!firstRowIn(before))
                QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        }
        QTRY_VERIFY_WITH_TIMEOUT(lens->upToDate(), 60000);
        QCOMPARE(m_window->controller()->modelRun()->seqLen(), 32);
        m_window->closeModel();
        m_window->setCurrentView(View::Grid);
    }

    // How long the GUI thread is held by a 2,000-token paste, and by a keystroke typed while
    // that paste is still being computed.
    void pasteTwoThousandTokens()
    {
        const QString paragraph = sentenceOf(2000, QStringLiteral("end"));
        QLineEdit* edit = m_window->sentenceEdit();
        QBENCHMARK_ONCE
        {
            edit->setText(paragraph);
        }
        QVERIFY(m_window->controller()->isBusy());
        QElapsedTimer timer;
        timer.start();
        QTest::keyClick(edit, 's');
        const double keystroke_ms = timer.nsecsElapsed() / 1e6;
        qInfo("keystroke while the paste computes: %.2f ms on the GUI thread", keystroke_ms);
        timer.restart();
        m_window->controller()->waitForIdle();
        qInfo("2000-token result on the worker after: %.0f ms", timer.nsecsElapsed() / 1e6);
    }
};

QTEST_MAIN(WindowBench)
#include "window_bench.moc"
