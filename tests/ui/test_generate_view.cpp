// The Generate tab in the real window, offscreen, on the tiny fixture models: greedy tokens as the
// core's TokenGeneration gives them, each shown as it comes; Stop; the refusals beside the button
// (a BERT-family model, past the positions, over the memory budget) with the last sequence kept;
// the step slider giving every view the prefix's run and the top 5 of that step; a branch from an
// alternative token, and going back to the first branch.
#include "core/model/EndOfSequence.h"
#include "core/model/ModelSession.h"
#include "core/model/RunPrefix.h"
#include "core/model/TokenGeneration.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "tests/ui/ModelWindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/generate/GenerateView.h"

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QtTest>

using namespace attn;
using namespace attn::test;
using attn::testing::modelFixture;

class TestGenerateView : public ModelWindowTest {
    Q_OBJECT

    GenerateView* view() const { return dynamic_cast<GenerateView*>(m_window->viewTabs()->page(View::Generate)); }

    void openOnTab(const QString& name, const QString& sentence)
    {
        open(modelFixture(name), sentence);
        m_window->setCurrentView(View::Generate);
    }

    // Clicks Generate and waits for the request to end.
    void generate(int tokens)
    {
        view()->tokensBox()->setValue(tokens);
        QSignalSpy finished(view(), &GenerateView::finished);
        QTest::mouseClick(view()->generateButton(), Qt::LeftButton);
        QVERIFY(view()->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 20000);
        controller()->waitForIdle();
    }

    // What the core generates greedily from the window's prompt.
    std::vector<int> greedy(const std::vector<int>& prompt, int tokens) const
    {
        const auto session = controller()->model();
        GenerationRequest request;
        request.max_new_tokens = tokens;
        request.eos_ids = EndOfSequence::read(session->dir()).value();
        auto generation = TokenGeneration::start(session->model(), prompt, request);
        if (!generation || !(*generation)->generate())
            return {};
        return (*generation)->tokenIds();
    }

private slots:
    void greedyTokensAreTheCoresAsTheyCome_data()
    {
        QTest::addColumn<QString>("model");
        QTest::newRow("gpt2-tiny") << "gpt2-tiny";
        QTest::newRow("llama-tiny") << "llama-tiny";
    }

    void greedyTokensAreTheCoresAsTheyCome()
    {
        QFETCH(QString, model);
        openOnTab(model, QStringLiteral("the cat sat on the mat"));
        const std::vector<int> prompt = controller()->modelRun()->token_ids;
        QSignalSpy steps(view(), &GenerateView::stepAdded);
        generate(6);
        const std::vector<int> want = greedy(prompt, 6);
        QVERIFY(!want.empty());
        QCOMPARE(view()->sequence(), want);
        QCOMPARE(view()->promptLength(), int(prompt.size()));
        // Each token reached the window by itself (an eos may end the text sooner).
        QCOMPARE(steps.count(), int(want.size() - prompt.size()));
        QVERIFY(view()->errorLabel()->isHidden());
        // At the last step every view has the whole sequence's run.
        QCOMPARE(view()->stepSlider()->value(), int(view()->steps().size()));
        QCOMPARE(controller()->modelRun()->token_ids, want);
        QCOMPARE(controller()->result()->input.tokens.size(), qsizetype(want.size()));
        QVERIFY(controller()->modelRunIsGiven());
        QCOMPARE(view()->branchCount(), 1);
    }

    void stopCancels()
    {
        openOnTab(QStringLiteral("gpt2-tiny"), QStringLiteral("the cat"));
        view()->tokensBox()->setValue(60);
        QSignalSpy finished(view(), &GenerateView::finished);
        connect(view(), &GenerateView::stepAdded, view(), &GenerateView::stop, Qt::SingleShotConnection);
        QTest::mouseClick(view()->generateButton(), Qt::LeftButton);
        QVERIFY(view()->stopButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 20000);
        QVERIFY(!view()->isRunning());
        QVERIFY(!view()->stopButton()->isEnabled());
        QVERIFY2(view()->steps().size() < 60, qPrintable(QString::number(view()->steps().size())));
        QVERIFY(!view()->steps().empty());
        QVERIFY(view()->findChild<QLabel*>(QStringLiteral("GenerateStatus"))->text().startsWith("Stopped after"));
        QCOMPARE(view()->run()->seqLen(), int(view()->sequence().size()));
    }

    // Refused beside the button, before anything runs; the sequence shown stays.
    void refusals()
    {
        openOnTab(QStringLiteral("gpt2-tiny"), QStringLiteral("the cat sat"));
        generate(3);
        const std::vector<int> kept = view()->sequence();
        const int prompt = view()->promptLength();

        view()->tokensBox()->setValue(64);  // prompt + 64 > n_positions 64
        QVERIFY(!view()->generate());
        QVERIFY(view()->errorLabel()->isVisible());
        QVERIFY2(view()->errorLabel()->text().contains("64"), qPrintable(view()->errorLabel()->text()));
        QCOMPARE(view()->sequence(), kept);
        QVERIFY(!view()->isRunning());

        view()->tokensBox()->setValue(64 - prompt);       // exactly the positions: accepted
        view()->setMemoryBudget(std::int64_t(64) << 20);  // below the program's own baseline
        QVERIFY(!view()->generate());
        QVERIFY2(
            view()->errorLabel()->text().contains("memory budget") || view()->errorLabel()->text().contains("budget"),
            qPrintable(view()->errorLabel()->text()));
        QCOMPARE(view()->sequence(), kept);
        view()->setMemoryBudget(0);
        generate(64 - prompt);
        QVERIFY(view()->errorLabel()->isHidden());

        open(modelFixture(QStringLiteral("bert-tiny")), QStringLiteral("the cat sat"));
        QTRY_VERIFY(view()->sequence().empty());
        QVERIFY(!view()->generate());
        QVERIFY(view()->errorLabel()->isVisible());
        QVERIFY(!view()->errorLabel()->text().isEmpty());
    }

    // At step s the window's run is the first prompt + s tokens of the final one (its maps the
    // top-left block: the same floats), and the list holds the top 5 of token s.
    void theSliderReplaysTheSteps()
    {
        openOnTab(QStringLiteral("gpt2-tiny"), QStringLiteral("the cat sat on the mat"));
        generate(5);
        const auto whole = view()->run();
        const int prompt = view()->promptLength();
        for (int step : {0, 2, 4}) {
            view()->stepSlider()->setValue(step);
            controller()->waitForIdle();
            const auto shown = controller()->modelRun();
            QCOMPARE(shown->seqLen(), prompt + step);
            QCOMPARE(controller()->result()->input.tokens.size(), qsizetype(prompt + step));
            for (int layer = 0; layer < whole->numLayers(); ++layer)
                for (int head = 0; head < whole->attention.numHeads(); ++head) {
                    const Matrix expected =
                        whole->attention.head(layer, head).topLeftCorner(prompt + step, prompt + step);
                    QCOMPARE(shown->attention.head(layer, head), expected);
                }
            if (step == 0) {
                QCOMPARE(view()->alternativesList()->count(), 0);
                continue;
            }
            const GenerationStep& at = view()->steps()[size_t(step - 1)];
            QCOMPARE(view()->alternativesList()->count(), 5);
            for (int i = 0; i < 5; ++i) {
                QCOMPARE(view()->alternativesList()->item(i)->data(Qt::UserRole).toInt(), at.top_ids[size_t(i)]);
                QVERIFY(
                    view()->alternativesList()->item(i)->text().contains(QString::number(at.top_p[size_t(i)], 'f', 4)));
            }
        }
    }

    // A click on the second most likely token of step 2: the tokens before it, that token, and
    // greedy generation on from there; the first branch shown again from the list.
    void aClickOnAnAlternativeBranches()
    {
        openOnTab(QStringLiteral("gpt2-tiny"), QStringLiteral("the cat sat on the mat"));
        generate(6);
        const std::vector<int> first = view()->sequence();
        const int prompt = view()->promptLength();
        view()->stepSlider()->setValue(2);
        const GenerationStep at = view()->steps()[1];
        QListWidgetItem* other = view()->alternativesList()->item(at.top_ids[0] == at.token_id ? 1 : 0);
        const int id = other->data(Qt::UserRole).toInt();
        QVERIFY(id != at.token_id);

        QSignalSpy finished(view(), &GenerateView::finished);
        const QRect where = view()->alternativesList()->visualItemRect(other);
        QTest::mouseClick(view()->alternativesList()->viewport(), Qt::LeftButton, {}, where.center());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 20000);
        controller()->waitForIdle();
        const std::vector<int>& branch = view()->sequence();
        QVERIFY(std::equal(first.begin(), first.begin() + prompt + 1, branch.begin()));
        QCOMPARE(branch[size_t(prompt + 1)], id);
        // Then greedy again: what the core generates from the branch's first tokens.
        std::vector<int> start(branch.begin(), branch.begin() + prompt + 2);
        const std::vector<int> want = greedy(start, int(first.size()) - prompt - 2);
        QCOMPARE(branch, want);
        QVERIFY(view()->steps()[1].forced);
        QCOMPARE(view()->branchCount(), 2);
        QCOMPARE(view()->currentBranch(), 1);
        QCOMPARE(view()->branchList()->count(), 2);
        QCOMPARE(controller()->modelRun()->token_ids, branch);

        finished.clear();
        QTest::mouseClick(view()->branchList()->viewport(), Qt::LeftButton, {},
                          view()->branchList()->visualItemRect(view()->branchList()->item(0)).center());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 20000);
        controller()->waitForIdle();
        QCOMPARE(view()->sequence(), first);
        QCOMPARE(view()->currentBranch(), 0);
        QCOMPARE(controller()->modelRun()->token_ids, first);
        QCOMPARE(view()->branchCount(), 2);
    }

    // The prefix of a run is the run of the prefix: one pass over the first tokens gives the same
    // maps up to the order of float32 sums (the appended rows' products are of other shapes).
    void thePrefixRunIsThePrefixsPass()
    {
        openOnTab(QStringLiteral("gpt2-tiny"), QStringLiteral("the cat sat on the mat"));
        generate(4);
        const auto whole = view()->run();
        const int length = view()->promptLength() + 2;
        auto prefix = runPrefix(*whole, length);
        QVERIFY(prefix);
        std::vector<int> ids(whole->token_ids.begin(), whole->token_ids.begin() + length);
        auto pass = controller()->model()->model().forward(ids, whole->selected_layer);
        QVERIFY(pass);
        for (int layer = 0; layer < whole->numLayers(); ++layer)
            for (int head = 0; head < whole->attention.numHeads(); ++head) {
                const Matrix a = prefix->attention.head(layer, head);
                const Matrix b = pass->attention.head(layer, head);
                // float32 sums in another order: a few ulps of probabilities up to 1.
                QVERIFY((a - b).cwiseAbs().maxCoeff() <= 1e-5f);
            }
        QVERIFY((prefix->last_hidden_state - pass->last_hidden_state).cwiseAbs().maxCoeff() <= 1e-4f);
    }
};

REGISTER_TEST_SUITE(TestGenerateView, QApplication)
#include "test_generate_view.moc"
