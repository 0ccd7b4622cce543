#pragma once

#include "core/model/ModelSession.h"
#include "core/model/TokenPredictions.h"
#include "ui/views/MetricChooser.h"
#include "ui/views/ViewPage.h"
#include "ui/views/attribution/AttributionPainter.h"
#include "ui/workers/LatestJob.h"
#include "ui/workers/ViewWorkers.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QSpinBox;

namespace attn {

// The Attribution tab: direct logit attribution (LogitAttribution) of the open model's run at one
// position, for a target token and an optional foil, each picked from the head's top predictions
// there or typed (the vocabulary's spelling, "Ġcat", or an id). A token that is not one entry of
// the vocabulary shows its error beside its field and the last good picture stays. Clicking a
// head asks for its attention map (headActivated). Recomputed on a worker while typing, the
// newest request winning.
class AttributionView : public QWidget, public ViewPage {
    Q_OBJECT

public:
    explicit AttributionView(QWidget* parent = nullptr);
    ~AttributionView() override;

    // ViewPage: the tab as the window and Export image see it.
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;
    void setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens) override;
    void computeNow() override;

    // The model whose runs come next (its weights, its head and its tokenizer); null: none.
    void setModel(std::shared_ptr<const ModelSession> model);
    void clearModel();

    const AttributionPainter& painter() const { return m_painter; }
    QWidget* canvas() const { return m_canvas; }
    MetricChooser* metricChooser() const { return m_metric; }
    QComboBox* targetBox() const { return m_metric->targetBox(); }
    QComboBox* foilBox() const { return m_metric->foilBox(); }
    QSpinBox* positionBox() const { return m_metric->positionBox(); }
    QLabel* targetError() const { return m_metric->targetError(); }
    QLabel* foilError() const { return m_metric->foilError(); }

    // What a worker computes: the head's top predictions at the position and the attribution of
    // the target (the top prediction while none is typed) and foil there.
    struct Job {
        std::shared_ptr<const ModelSession> model;
        std::shared_ptr<const ModelRun> run;
        int position = 0;
        std::optional<int> target;
        std::optional<int> foil;
    };
    struct Outcome {
        std::vector<int> top;  // the top predictions' ids, best first
        Result<AttributionResult> attribution = Error{QString()};
    };
    static Outcome compute(const Job& job);

signals:
    void computed();
    void headActivated(int layer, int head);
    void headMenuRequested(int layer, int head, QPoint global_pos);  // a right click on a head

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void inputsChanged();  // a field or the run changed: parse, then a new computation
    void showOutcome(Outcome outcome, const Job& job);
    std::optional<Job> pendingJob();  // nullopt: a field is wrong or nothing to compute (message shown)

    AttributionPainter m_painter;
    std::shared_ptr<const ModelSession> m_model;
    std::shared_ptr<const ModelRun> m_run;
    QStringList m_labels;
    QWidget* m_canvas = nullptr;
    MetricChooser* m_metric = nullptr;
    OwnWorkers m_workers;
    LatestJob m_job{this, m_workers};
};

}  // namespace attn
