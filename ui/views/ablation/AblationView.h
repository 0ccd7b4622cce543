#pragma once

#include "core/lens/AblationScan.h"
#include "core/model/ModelSession.h"
#include "ui/views/MetricChooser.h"
#include "ui/views/ViewPage.h"
#include "ui/views/ablation/AblationPainter.h"
#include "ui/workers/LatestJob.h"
#include "ui/workers/ViewWorkers.h"

#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace attn {

// The Ablation scan tab: for every head of the open model, the metric (chosen as the Attribution
// tab chooses it: MetricChooser) with that head alone ablated, minus the plain run's
// (AblationScan), as an L x H heatmap on a diverging colour map centred on 0, the value on hover.
// The scan runs on a worker with a progress bar and Cancel, the newest request winning; meanwhile
// and after a refusal (a token not in the vocabulary, a model without a prediction head) the last
// good picture stays. A click on a head asks the window to ablate it (headAblationRequested).
class AblationView : public QWidget, public ViewPage {
    Q_OBJECT

public:
    explicit AblationView(QWidget* parent = nullptr);
    ~AblationView() override;

    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;
    void setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens) override;
    void computeNow() override;

    void setModel(std::shared_ptr<const ModelSession> model);
    void clearModel();

    const AblationPainter& painter() const { return m_painter; }
    QWidget* canvas() const { return m_canvas; }
    MetricChooser* metricChooser() const { return m_metric; }
    QComboBox* modeBox() const { return m_mode; }
    QProgressBar* progressBar() const { return m_progress; }
    QPushButton* cancelButton() const { return m_cancel; }
    QLabel* problemLabel() const { return m_problem; }  // a refused scan, beside the picture it keeps
    bool isScanning() const { return m_scanning; }

    struct Job {
        std::shared_ptr<const ModelSession> model;
        std::shared_ptr<const ModelRun> run;
        int position = 0;
        std::optional<int> target;
        std::optional<int> foil;
        HeadAblation mode = HeadAblation::Zero;
        std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
        std::shared_ptr<std::atomic<int>> done = std::make_shared<std::atomic<int>>(0);
        std::shared_ptr<std::atomic<int>> total = std::make_shared<std::atomic<int>>(0);
    };
    struct Outcome {
        std::vector<int> top;  // the plain run's top predictions at the position, best first
        MetricTokens tokens;
        Result<AblationScanResult> scan = Error{QString()};
    };
    // The plain run (the run given, or the same ids again without the window's ablated heads,
    // with the residual stream the scan starts from), its top predictions and the scan.
    static Outcome compute(const Job& job);

signals:
    void computed();
    void headAblationRequested(int layer, int head, attn::HeadAblation mode);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void inputsChanged();
    std::optional<Job> pendingJob();
    void showOutcome(Outcome outcome, const Job& job);
    void showProgress();
    void cancelScan();  // the Cancel button: the scan stops and says so
    void dropScan();    // what is under way is no longer wanted (a refusal, no model)
    void setScanning(bool scanning);

    AblationPainter m_painter;
    std::shared_ptr<const ModelSession> m_model;
    std::shared_ptr<const ModelRun> m_run;
    QStringList m_labels;
    QWidget* m_canvas = nullptr;
    MetricChooser* m_metric = nullptr;
    QComboBox* m_mode = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_problem = nullptr;
    QTimer* m_progress_timer = nullptr;
    std::optional<Job> m_running;  // the scan under way (its progress and cancel flag)
    bool m_scanning = false;
    bool m_outdated = false;  // inputs changed while the tab was hidden: scanned when it is shown
    OwnWorkers m_workers;
    LatestJob m_job{this, m_workers};
};

}  // namespace attn
