#pragma once

#include "core/lens/LogitLens.h"
#include "ui/views/ViewPage.h"
#include "ui/views/lens/LensPainter.h"
#include "ui/workers/LatestJob.h"
#include "ui/workers/ViewWorkers.h"

#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QSpinBox;

namespace attn {

class ModelSession;

// The Lens tab: the logit lens of the open model's run (LensPainter), computed from the run the
// window already has (its residual stream, kept while this tab is shown), the last position
// first, the newest run winning. Choices: K, what colours the cells (the top token's p, or a
// tracked token's p or rank) and the tracked token, typed or picked from the top predictions.
// Hover a cell for its top K; click one to pin its position (its top K listed beside the grid).
class LensView : public QWidget, public ViewPage {
    Q_OBJECT

public:
    explicit LensView(QWidget* parent = nullptr);
    ~LensView() override;

    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    void setModel(std::shared_ptr<const ModelSession> model);
    void setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens) override;
    void clearModel();
    // The window's layer: the row of hidden_states[layer + 1] (that layer's output) is framed.
    void setLayer(int layer);
    LensRequest request() const;  // the top K and the tracked token chosen
    // Why the lens of the run is not computed (it would exceed the memory budget); "" to compute it.
    void setRefusal(const QString& refusal);
    void setColorMap(ColorMaps::Map map);
    // Pins a position (-1: none).
    void pin(int position);

    // Starts the lens on a worker if it is out of date (the canvas does when it is drawn).
    void bringUpToDate();
    void computeNow() override;

    const LensPainter& painter() const { return m_painter; }
    QWidget* canvas() const { return m_canvas; }
    QComboBox* shadeBox() const { return m_shade; }
    QComboBox* trackedBox() const { return m_tracked; }
    QLabel* trackedError() const { return m_tracked_error; }
    QSpinBox* topKBox() const { return m_top_k; }
    std::optional<int> trackedId() const { return m_tracked_id; }
    // The grid shown is the whole lens of the current run and choices.
    bool upToDate() const { return !m_stale && m_painter.message().isEmpty(); }

signals:
    void computed();  // the whole grid is in

private:
    struct Outcome {
        std::shared_ptr<const LensResult> result;
        QString error;
        bool complete = false;
    };
    void changed();  // the run, the model or the request changed
    void trackedEdited();
    void shadeChosen(int index);
    void refreshMessage();
    void deliver(Outcome outcome);
    void fillTrackedChoices();

    LensPainter m_painter;
    std::shared_ptr<const ModelSession> m_model;
    std::shared_ptr<const ModelRun> m_run;
    QWidget* m_canvas = nullptr;
    QComboBox* m_shade = nullptr;
    QComboBox* m_tracked = nullptr;
    QLabel* m_tracked_error = nullptr;
    QSpinBox* m_top_k = nullptr;
    std::optional<int> m_tracked_id;
    int m_layer = 0;
    QString m_refusal;
    bool m_requested = false;
    bool m_stale = true;
    OwnWorkers m_workers;
    LatestJob m_lens_job{this, m_workers};
};

}  // namespace attn
