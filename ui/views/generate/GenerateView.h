#pragma once

#include "core/model/ModelSession.h"
#include "ui/views/ViewPage.h"
#include "ui/views/generate/GenerationJob.h"
#include "ui/workers/LatestJob.h"
#include "ui/workers/ViewWorkers.h"

#include <QWidget>

#include <atomic>
#include <memory>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;
class QSlider;
class QSpinBox;
class QTextBrowser;

namespace attn {

// The Generate tab: N tokens after the open model's input, greedy or sampled (temperature, top-k,
// top-p, seed), on the view's worker, each token shown as it comes (newest request wins; Stop
// cancels and keeps what is in). A step slider replays the sequence: at step s every attention
// view is given the run of the first prompt + s tokens (stepRunChosen) and the view lists the
// model's top 5 for token s with their probabilities. A click on another of them branches: the
// tokens before s, that one, and generation goes on; every branch stays in a list to go back to.
// Refused, beside the Generate button, before anything is computed: a bidirectional model, a
// folder without a prediction head, a sequence past the positions, or one over the memory budget.
class GenerateView : public QWidget, public ViewPage {
    Q_OBJECT

public:
    explicit GenerateView(QWidget* parent = nullptr);
    ~GenerateView() override;

    // ViewPage: the tab as Export image draws it (the window only: --view does not offer it).
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    // The model and the ids generation starts from (the sentence's run); null: none open.
    void setPrompt(std::shared_ptr<const ModelSession> model, const std::vector<int>& ids);
    void clearModel();
    void setMemoryBudget(std::int64_t bytes) { m_memory_budget = bytes; }

    // The Generate button: starts from the prompt with the controls' settings (false: refused,
    // the reason beside the button).
    bool generate();
    void stop();
    // Token `token_id` in place of step `step` (1-based) of the sequence shown, and on from there.
    bool branchAt(int step, int token_id);
    // Shows branch `index` of the list again (its run made again on the worker).
    void showBranch(int index);
    void showStep(int step);  // 0: the prompt; the slider's value

    bool isRunning() const { return m_running; }
    const std::vector<int>& sequence() const { return m_ids; }
    int promptLength() const { return m_prompt_length; }
    const std::vector<GenerationStep>& steps() const { return m_steps; }
    std::shared_ptr<const ModelRun> run() const { return m_run; }  // the whole sequence's, once finished
    int branchCount() const { return int(m_branches.size()); }
    int currentBranch() const { return m_current_branch; }

    QSpinBox* tokensBox() const { return m_tokens; }
    QComboBox* modeBox() const { return m_mode; }
    QDoubleSpinBox* temperatureBox() const { return m_temperature; }
    QSpinBox* topKBox() const { return m_top_k; }
    QDoubleSpinBox* topPBox() const { return m_top_p; }
    QSpinBox* seedBox() const { return m_seed; }
    QPushButton* generateButton() const { return m_generate; }
    QPushButton* stopButton() const { return m_stop; }
    QLabel* errorLabel() const { return m_error; }
    QSlider* stepSlider() const { return m_step; }
    QListWidget* alternativesList() const { return m_alternatives; }
    QListWidget* branchList() const { return m_branch_list; }
    QTextBrowser* sequenceText() const { return m_text; }

    // The generation's memory at its full length against `budget` (MemoryPlan): every layer and
    // head's attention rows as they come and the sequence's run assembled from them, the rows
    // each token keeps per layer, the key/value caches.
    static Status planMemory(const ModelConfig& config, int final_length, std::int64_t budget);

signals:
    void stepAdded();  // a token came in
    void finished();   // a request ended (finished, stopped or refused on the worker)
    void stepRunChosen(std::shared_ptr<const attn::ModelRun> run);

private:
    struct Branch {
        std::vector<int> prompt;
        GenerationRequest settings;
        std::vector<int> ids;
        std::vector<GenerationStep> steps;
    };

    GenerationRequest settingsFromControls() const;
    bool refuse(const QString& message);
    void startJob(GenerationJob::Request request);
    void takeProgress(GenerationJob::Update update);
    void takeFinished(GenerationJob::Update update);
    void updateControls();
    void showSequence();
    void showAlternatives();
    void showBranchList();
    QString label(int id) const;

    std::shared_ptr<const ModelSession> m_model;
    std::vector<int> m_prompt;
    std::int64_t m_memory_budget = 0;

    std::vector<int> m_ids;  // the sequence shown
    int m_prompt_length = 0;
    std::vector<GenerationStep> m_steps;
    std::shared_ptr<const ModelRun> m_run;
    std::shared_ptr<TokenGeneration> m_generation;  // touched by the worker only, handed to its next job
    std::vector<Branch> m_branches;
    int m_current_branch = -1;
    bool m_running = false;
    std::shared_ptr<std::atomic<bool>> m_cancel;

    QSpinBox* m_tokens = nullptr;
    QComboBox* m_mode = nullptr;
    QDoubleSpinBox* m_temperature = nullptr;
    QSpinBox* m_top_k = nullptr;
    QDoubleSpinBox* m_top_p = nullptr;
    QSpinBox* m_seed = nullptr;
    QPushButton* m_generate = nullptr;
    QPushButton* m_stop = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_status = nullptr;
    QTextBrowser* m_text = nullptr;
    QSlider* m_step = nullptr;
    QLabel* m_step_label = nullptr;
    QListWidget* m_alternatives = nullptr;
    QListWidget* m_branch_list = nullptr;
    bool m_filling = false;  // the lists and the slider being filled by the view, not clicked

    OwnWorkers m_workers;
    LatestJob m_job{this, m_workers};
};

}  // namespace attn
