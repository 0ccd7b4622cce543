#pragma once

#include "core/base/Result.h"
#include "core/base/Tensor.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeadAggregate.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/registry/ViewRegistry.h"
#include "ui/workers/LatestJob.h"

#include <QList>
#include <QSize>
#include <QString>
#include <QTabWidget>

#include <functional>
#include <memory>
#include <vector>

class QPainter;

namespace attn {

struct AttentionResult;
class CompareView;
class HeadView;
class HeadsGrid;
class LinesView;
class ModelView;
class RolloutView;
class AttributionView;
class QueryKeyView;
struct ModelRun;
class ModelSession;
class ShapesPanel;
class WalkthroughView;

// The views of the window as tabs, and the wiring between them:
// - every result goes to the visible view at once; a hidden view is marked stale and catches
//   up when its tab is shown, so a keystroke costs one view's work, not six;
// - a click on a head of the grid opens it in the head view and picks it for comparison;
// - a cell clicked in the head view (or on a grid head) selects that head and query in the
//   walkthrough and is outlined in the head view; a head or query chosen in the walkthrough is
//   outlined in the head view (both ways, no loops: WalkthroughView::select never emits);
// - the selected head is also the one the shape diagram highlights.
class ViewTabs : public QTabWidget {
    Q_OBJECT
public:
    explicit ViewTabs(QWidget* parent = nullptr);

    HeadsGrid* grid() const { return m_grid; }
    HeadView* headView() const { return m_head_view; }
    CompareView* compareView() const { return m_compare; }
    LinesView* linesView() const { return m_lines; }
    ShapesPanel* shapesPanel() const { return m_shapes; }
    WalkthroughView* walkthrough() const { return m_walkthrough; }
    ModelView* modelView() const { return m_model; }
    RolloutView* rolloutView() const { return m_rollout; }
    AttributionView* attributionView() const;
    // The Attribution tab reads the run's own probabilities (never the drawn norms) through the
    // model's head.
    void showAttributionRun(std::shared_ptr<const ModelSession> model, std::shared_ptr<const ModelRun> run,
                            const QStringList& labels);
    QueryKeyView* queryKeyView() const { return m_query_key; }

    // The tab of each View, in the order of View (ViewRegistry's rows).
    View currentView() const { return View(currentIndex()); }
    void setCurrentView(View view) { setCurrentIndex(int(view)); }
    ViewPage* page(View view) const { return m_pages[size_t(view)]; }

    // The current view for Export image / Copy image: what it draws, its size on screen, and a
    // file name suggestion such as "attention-head-2.png".
    void renderCurrent(QPainter* painter, const QRectF& target);
    QSize currentViewSize() const;
    QString currentExportName() const;

    // The weights <-> norms switch: where the value norms (H, T_kv) of a result come from, drawn
    // as ||A_ij f(x_j)|| by every view (AttentionDisplay::withValueNorms); empty: the weights.
    // Asked once per result (the pass is not repeated).
    using ValueNorms = std::function<Result<Matrix>(const AttentionResult& result)>;
    void setValueNorms(ValueNorms norms);
    bool drawsValueNorms() const { return bool(m_value_norms); }
    // Why the norms cannot be drawn for this result (the weights are drawn meanwhile); "" when they are.
    QString valueNormsError() const { return m_norms_error; }

public slots:
    void setResult(std::shared_ptr<const attn::AttentionResult> result);
    void setColorMap(attn::ColorMaps::Map map);
    // The one colour scale of every heatmap view (grid, one head, Compare's A and B).
    void setColorScale(attn::ColorScale scale);
    // Keys hidden in the grid, head, compare and lines views, each row renormalised over the
    // others (AttentionDisplay::withHiddenKeys). Positions beyond the current input are kept for
    // a longer one and ignored meanwhile; the walkthrough and shapes show the computation as it is.
    void setHiddenKeys(const QList<int>& positions);
    QList<int> hiddenKeys() const { return m_hidden_keys; }
    // The keys hidden in what is shown now (inside the input).
    std::vector<bool> shownHiddenKeys() const;
    void setTopMass(double fraction);                  // grid and head view (HeadsGrid::setTopMass)
    void setAggregate(attn::HeadAggregate aggregate);  // grid and model
    void setReduction(attn::CellReduction how);        // grid, head view and Compare's figure
    void setSentence(const QString& sentence);
    void openHead(int head);  // what a click on a grid head does
    // The selected head everywhere: head view, grid frame, shape diagram, walkthrough, and the
    // lines view when it shows one head. Also before the first result (the command line's --head).
    void selectHead(int head);
    // The walkthrough's head and query: applied at once when it is shown, else when it is next.
    void selectInWalkthrough(int head, int query);
    // The Model tab: every layer x head of a whole model's run (ModelView); clearModel goes back
    // to its explanation of how to open a model.
    void setModelRun(std::shared_ptr<const attn::ModelRun> run, const QStringList& tokens);
    void clearModel();

signals:
    // A head clicked (or chosen with Enter) in the Model tab.
    void modelHeadActivated(int layer, int head);
    // A model's layer chosen on a tab (the Q-K tab's layer box).
    void layerChosen(int layer);
    // valueNormsError() changed (a result whose norms cannot be drawn, or one whose can again).
    void valueNormsProblem(const QString& message);

private:
    void bringUpToDate(int tab);

    HeadsGrid* m_grid = nullptr;
    HeadView* m_head_view = nullptr;
    CompareView* m_compare = nullptr;
    LinesView* m_lines = nullptr;
    ShapesPanel* m_shapes = nullptr;
    WalkthroughView* m_walkthrough = nullptr;
    ModelView* m_model = nullptr;
    RolloutView* m_rollout = nullptr;
    QueryKeyView* m_query_key = nullptr;
    std::shared_ptr<const AttentionResult> m_result;
    std::shared_ptr<const AttentionResult> m_shown;  // m_result with the hidden keys applied (or m_result)
    ColorScale m_scale = ColorScale::WithoutOneKeyRows;
    // A long input's percentile, for the percentile scale: computed on a worker for m_shown
    // (HeatmapData::computePercentile), then the scale applied again. Set: the job for that result.
    std::shared_ptr<const AttentionResult> m_percentile_of;
    LatestJob m_percentile_job{this};
    void requestPercentile();
    QList<int> m_hidden_keys;
    ValueNorms m_value_norms;
    const AttentionResult* m_norms_of = nullptr;  // the result m_norms belong to
    Result<Matrix> m_norms = Matrix();
    QString m_norms_error;
    void updateShown();
    std::vector<ViewPage*> m_pages;  // one per row of ViewRegistry, the tabs' widgets
    std::vector<bool> m_stale;
    int m_head = 0;
    int m_walk_head = 0;
    int m_walk_query = 0;
};

}  // namespace attn
