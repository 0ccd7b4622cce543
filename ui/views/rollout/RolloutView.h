#pragma once

#include "ui/views/ViewPage.h"
#include "ui/views/rollout/RolloutPainter.h"
#include "ui/workers/LatestJob.h"
#include "ui/workers/ViewWorkers.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace attn {

// The Rollout tab: attention rollout of the open model (RolloutPainter), with its choices: how
// each layer's heads are fused, the residual weight (0 to 1), the layer to roll out to, and the
// query whose row is drawn as bars.
class RolloutView : public QWidget, public ViewPage {
    Q_OBJECT

public:
    explicit RolloutView(QWidget* parent = nullptr);
    ~RolloutView() override;

    // ViewPage: the tab as the window and Export image see it.
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    void setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens) override;
    void clearModel();
    void setColorMap(ColorMaps::Map map);
    void setColorScale(ColorScale scale);
    void setHiddenKeys(const QList<int>& positions);

    // Starts computing the rollout of the current choices on a worker if it is out of date (the
    // canvas does when it is drawn: a hidden tab costs nothing); computed() follows on this thread.
    void bringUpToDate();
    // The same on this thread, waiting for it: for a picture that must show the current choices.
    void computeNow() override;

    const RolloutPainter& painter() const { return m_painter; }
    QWidget* canvas() const { return m_canvas; }
    QComboBox* fusionBox() const { return m_fusion; }
    QComboBox* methodBox() const { return m_method; }
    QSlider* residualSlider() const { return m_residual; }
    QSpinBox* layerBox() const { return m_layer; }
    QSpinBox* queryBox() const { return m_query; }

signals:
    void computed();

private:
    void optionsChanged();
    void changed();  // the choices or the run changed: a new computation is due

    RolloutPainter m_painter;
    QWidget* m_canvas = nullptr;
    QComboBox* m_fusion = nullptr;
    QComboBox* m_method = nullptr;
    QSlider* m_residual = nullptr;
    QLabel* m_residual_value = nullptr;
    QSpinBox* m_layer = nullptr;
    QSpinBox* m_query = nullptr;
    OwnWorkers m_workers;                      // a newer request waits for the one running
    LatestJob m_rollout_job{this, m_workers};  // the rollout of the newest choices and run
    // The token drawn as bars was picked by the user; until then (and again when a model opens)
    // it is the painter's: a decoder's last token, an encoder's first ([CLS]).
    bool m_query_chosen = false;
    void enableControls(bool enabled);
    bool m_requested = false;  // of the worker, for the current choices and run
};

}  // namespace attn
