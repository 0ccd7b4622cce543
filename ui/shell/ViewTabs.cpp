#include "ui/shell/ViewTabs.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/views/ViewPage.h"
#include "ui/views/attribution/AttributionView.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/lens/LensView.h"
#include "ui/views/lines/LinesCanvas.h"
#include "ui/views/lines/LinesView.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/qk/QueryKeyView.h"
#include "ui/views/rollout/RolloutView.h"
#include "ui/views/shapes/ShapesPanel.h"
#include "ui/views/walkthrough/WalkthroughView.h"

#include <algorithm>

namespace attn {

ViewTabs::ViewTabs(QWidget* parent) : QTabWidget(parent)
{
    setDocumentMode(true);
    for (const ViewRow& row : ViewRegistry::rows()) {
        ViewPage* page = row.create(this);
        m_pages.push_back(page);
        const int tab = addTab(dynamic_cast<QWidget*>(page), ViewRegistry::title(row));
        setTabToolTip(tab, ViewRegistry::tabTip(row));
    }
    m_grid = dynamic_cast<HeadsGrid*>(page(View::Grid));
    m_head_view = dynamic_cast<HeadView*>(page(View::Head));
    m_compare = dynamic_cast<CompareView*>(page(View::Compare));
    m_lines = dynamic_cast<LinesView*>(page(View::Lines));
    m_shapes = dynamic_cast<ShapesPanel*>(page(View::Shapes));
    m_walkthrough = dynamic_cast<WalkthroughView*>(page(View::Walkthrough));
    m_model = dynamic_cast<ModelView*>(page(View::Model));
    m_rollout = dynamic_cast<RolloutView*>(page(View::Rollout));
    m_query_key = dynamic_cast<QueryKeyView*>(page(View::QueryKey));
    m_stale.assign(m_pages.size(), true);

    connect(this, &QTabWidget::currentChanged, this, &ViewTabs::bringUpToDate);
    connect(m_grid, &HeadsGrid::headActivated, this, &ViewTabs::openHead);
    connect(m_model, &ModelView::headActivated, this, &ViewTabs::modelHeadActivated);
    connect(attributionView(), &AttributionView::headActivated, this, &ViewTabs::modelHeadActivated);
    // The cell clicked on a grid head is selected as if clicked in the head view.
    connect(m_grid, &HeadsGrid::cellActivated, this, [this](int head, int query, int key) {
        m_head_view->highlightCell(query, key);
        selectInWalkthrough(head, query);
    });
    // One selected head: the grid frames it, the diagram highlights it, the walkthrough follows it.
    connect(m_head_view, &HeadView::headChanged, this, &ViewTabs::selectHead);
    connect(m_query_key, &QueryKeyView::headChosen, this, &ViewTabs::selectHead);
    connect(m_query_key, &QueryKeyView::layerChosen, this, &ViewTabs::layerChosen);
    // Heatmap cell -> walkthrough (select() never emits, so this cannot loop).
    connect(m_head_view, &HeadView::cellSelected, this,
            [this](int head, int query, int) { selectInWalkthrough(head, query); });
    // Walkthrough -> heatmap: that head, that query's row outlined (the key cell kept when the
    // query is the one already selected there).
    connect(m_walkthrough, &WalkthroughView::selectionChanged, this, [this](int head, int query) {
        m_walk_head = head;
        m_walk_query = query;
        const int key = query == m_head_view->selectedQuery() ? m_head_view->selectedKey() : -1;
        selectHead(head);
        m_head_view->highlightCell(query, key);
    });
}

void ViewTabs::setResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    updateShown();
    m_stale.assign(m_pages.size(), true);
    bringUpToDate(currentIndex());
}

std::vector<bool> ViewTabs::shownHiddenKeys() const
{
    std::vector<bool> hidden;
    if (!m_result)
        return hidden;
    hidden.assign(size_t(m_result->keyLen()), false);
    for (int key : m_hidden_keys)
        if (key >= 0 && key < m_result->keyLen())
            hidden[size_t(key)] = true;
    return hidden;
}

void ViewTabs::updateShown()
{
    const std::vector<bool> hidden = shownHiddenKeys();
    const bool any = std::find(hidden.begin(), hidden.end(), true) != hidden.end();
    const bool every = !hidden.empty() && std::find(hidden.begin(), hidden.end(), false) == hidden.end();
    std::shared_ptr<const AttentionResult> drawn = m_result;  // the weights, or the norms
    const QString problem_before = m_norms_error;
    m_norms_error.clear();
    if (m_result && m_value_norms) {
        if (m_norms_of != m_result.get()) {
            m_norms = m_value_norms(*m_result);
            m_norms_of = m_result.get();
        }
        auto weighed = m_norms ? AttentionDisplay::withValueNorms(*m_result, *m_norms)
                              : Result<AttentionResult>(Error{m_norms.error()});
        if (weighed)
            drawn = std::make_shared<const AttentionResult>(std::move(weighed).value());
        else
            m_norms_error = weighed.error();
    }
    if (m_norms_error != problem_before)
        emit valueNormsProblem(m_norms_error);
    if (drawn && any && !every)  // every key hidden would leave nothing: shown as computed
        m_shown = std::make_shared<const AttentionResult>(AttentionDisplay::withHiddenKeys(*drawn, hidden));
    else
        m_shown = drawn;
    requestPercentile();
}

void ViewTabs::requestPercentile()
{
    const std::shared_ptr<const AttentionResult> shown = m_shown;
    if (m_percentile_of && m_percentile_of != shown) {  // the job for another result stops
        m_percentile_job.supersede();
        m_percentile_of.reset();
    }
    if (m_scale != ColorScale::Percentile || !shown || m_percentile_of == shown ||
        !HeatmapData::percentileMissing(*shown))
        return;
    m_percentile_of = shown;
    m_percentile_job.start(
        [shown](const auto& ticket) -> std::optional<bool> {
            if (!HeatmapData::computePercentile(*shown, [&ticket] { return ticket.isStale(); }))
                return std::nullopt;
            return true;
        },
        [this](bool) {
            m_percentile_of.reset();
            m_grid->percentileArrived();  // the views read it from the result now
            m_head_view->percentileArrived();
        });
}

void ViewTabs::setHiddenKeys(const QList<int>& positions)
{
    if (positions == m_hidden_keys)
        return;
    m_hidden_keys = positions;
    m_model->setHiddenKeys(positions);
    m_rollout->setHiddenKeys(positions);
    if (!m_result)
        return;
    updateShown();
    for (const ViewRow& row : ViewRegistry::rows())
        if (row.follows_hidden_keys)
            m_stale[size_t(row.id)] = true;
    bringUpToDate(currentIndex());
}

void ViewTabs::setValueNorms(ValueNorms norms)
{
    if (!norms && !m_value_norms)
        return;
    m_value_norms = std::move(norms);
    m_norms_of = nullptr;
    if (!m_result)
        return;
    updateShown();
    for (const ViewRow& row : ViewRegistry::rows())
        if (row.follows_hidden_keys)
            m_stale[size_t(row.id)] = true;
    bringUpToDate(currentIndex());
}

void ViewTabs::setColorScale(ColorScale scale)
{
    m_scale = scale;
    requestPercentile();
    m_rollout->setColorScale(scale);
    m_grid->setColorScale(scale);
    m_head_view->setColorScale(scale);
    m_compare->setColorScale(scale);
}

void ViewTabs::setReduction(CellReduction how)
{
    m_grid->setReduction(how);
    m_head_view->setReduction(how);
    m_compare->setReduction(how);
}

void ViewTabs::setTopMass(double fraction)
{
    m_grid->setTopMass(fraction);
    m_head_view->setTopMass(fraction);
    m_lines->setTopMass(fraction);
}

void ViewTabs::setAggregate(HeadAggregate aggregate)
{
    m_grid->setAggregate(aggregate);
    m_model->setAggregate(aggregate);
}

void ViewTabs::bringUpToDate(int tab)
{
    if (tab < 0 || tab >= int(m_pages.size()) || !m_stale[size_t(tab)] || !m_result)
        return;
    m_stale[size_t(tab)] = false;
    ViewInput input;
    input.computed = m_result;
    input.shown = m_shown;
    input.hidden_keys = shownHiddenKeys();
    input.head = m_head;
    input.walk_head = m_walk_head;
    input.walk_query = m_walk_query;
    m_pages[size_t(tab)]->showResult(input);
}

void ViewTabs::setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
{
    m_model->setModelRun(std::move(run), tokens);
}

AttributionView* ViewTabs::attributionView() const
{
    return dynamic_cast<AttributionView*>(page(View::Attribution));
}

void ViewTabs::showAttributionRun(std::shared_ptr<const ModelSession> model, std::shared_ptr<const ModelRun> run,
                                  const QStringList& labels)
{
    attributionView()->setModel(std::move(model));
    attributionView()->setModelRun(std::move(run), labels);
}

void ViewTabs::clearModel()
{
    m_model->clearModel();
    m_rollout->clearModel();
    attributionView()->clearModel();
}

void ViewTabs::setColorMap(ColorMaps::Map map)
{
    m_model->setColorMap(map);
    m_rollout->setColorMap(map);
    m_grid->setColorMap(map);
    m_head_view->setColorMap(map);
    m_compare->setColorMap(map);
    if (auto* lens = dynamic_cast<LensView*>(page(View::Lens)))
        lens->setColorMap(map);
}

void ViewTabs::setSentence(const QString& sentence)
{
    m_compare->setSentence(sentence);
}

void ViewTabs::openHead(int head)
{
    m_compare->pickHead(head);
    setCurrentView(View::Head);  // brings the head view up to date first
    selectHead(head);
}

void ViewTabs::selectHead(int head)
{
    m_head = std::max(0, head);
    m_head_view->setHead(m_head);  // emits headChanged (back here) only when it changes
    if (m_result)
        m_head = std::min(m_head, std::max(0, m_result->numHeads() - 1));
    m_grid->setCurrentHead(m_head);
    m_shapes->setHead(m_head);
    if (!m_stale[size_t(View::QueryKey)])
        m_query_key->setHead(m_head);
    selectInWalkthrough(m_head, m_walk_query);
    if (!m_stale[size_t(View::Lines)] && m_lines->canvas()->head() != LinesCanvas::kAllHeads)
        m_lines->setHead(m_head);
}

void ViewTabs::selectInWalkthrough(int head, int query)
{
    m_walk_head = std::max(0, head);
    m_walk_query = std::max(0, query);
    if (m_result) {
        m_walk_head = std::min(m_walk_head, std::max(0, m_result->numHeads() - 1));
        m_walk_query = std::min(m_walk_query, std::max(0, m_result->seqLen() - 1));
    }
    // The walkthrough rebuilds all its tables on a new selection: a hidden one waits.
    if (currentView() == View::Walkthrough && !m_stale[size_t(View::Walkthrough)])
        m_walkthrough->select(m_walk_head, m_walk_query);
    else
        m_stale[size_t(View::Walkthrough)] = true;
}

void ViewTabs::renderCurrent(QPainter* painter, const QRectF& target)
{
    // An exported picture shows what the view has finished, never "computing".
    ViewPage* current = page(currentView());
    current->computeNow();
    current->renderPicture(painter, target);
}

QSize ViewTabs::currentViewSize() const
{
    return page(currentView())->pictureSize();
}

QString ViewTabs::currentExportName() const
{
    return page(currentView())->exportName();
}

}  // namespace attn
