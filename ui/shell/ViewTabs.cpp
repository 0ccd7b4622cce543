#include "ui/shell/ViewTabs.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/views/compare/CompareFigure.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/lines/LinesCanvas.h"
#include "ui/views/lines/LinesView.h"
#include "ui/views/model/ModelGridCanvas.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/qk/QueryKeyView.h"
#include "ui/views/rollout/RolloutView.h"
#include "ui/views/shapes/ModelChainView.h"
#include "ui/views/shapes/ShapeDiagramView.h"
#include "ui/views/shapes/ShapesPanel.h"
#include "ui/views/walkthrough/WalkthroughView.h"
#include "ui/workers/ViewWorkers.h"

#include <QCoreApplication>
#include <QPainter>
#include <QPointer>
#include <QThreadPool>

#include <algorithm>

namespace attn {

ViewTabs::ViewTabs(QWidget* parent) : QTabWidget(parent)
{
    setDocumentMode(true);
    m_grid = new HeadsGrid(this);
    m_head_view = new HeadView(this);
    m_compare = new CompareView(this);
    m_lines = new LinesView(this);
    m_shapes = new ShapesPanel(this);
    m_walkthrough = new WalkthroughView(this);
    m_model = new ModelView(this);
    m_rollout = new RolloutView(this);
    m_query_key = new QueryKeyView(this);
    struct TabSpec {
        QWidget* widget;
        QString title;
        QString tip;
    };
    const TabSpec specs[kAllViews.size()] = {
        {m_grid, tr("All heads"), tr("Every head as a small heatmap; click one to open it (Ctrl+1)")},
        {m_head_view, tr("One head"),
         tr("One head large; click a cell to follow that query in the walkthrough (Ctrl+2)")},
        {m_compare, tr("Compare"),
         tr("Two heads side by side with their difference, head metrics and similarity (Ctrl+3)")},
        {m_lines, tr("Lines"), tr("Each query joined to the keys it attends to (Ctrl+4)")},
        {m_shapes, tr("Shapes"), tr("The tensor shapes of every step, with batch size (Ctrl+5)")},
        {m_walkthrough, tr("Walkthrough"), tr("The numbers of every step for one head and one query token (Ctrl+6)")},
        {m_model, tr("Model"),
         tr("Every layer and head of a whole model as one grid; click a head to open it (Ctrl+7)")},
        {m_rollout, tr("Rollout"),
         tr("Attention rollout: where what each token holds came from, across a whole model's layers (Ctrl+8)")},
        {m_query_key, tr("Q–K space"),
         tr("The selected head's queries and keys in one scatter: a query near a key attends to it (Ctrl+9)")},
    };
    for (int tab = 0; tab < int(kAllViews.size()); ++tab) {
        addTab(specs[tab].widget, specs[tab].title);
        setTabToolTip(tab, specs[tab].tip);
    }
    m_stale.fill(true);

    connect(this, &QTabWidget::currentChanged, this, &ViewTabs::bringUpToDate);
    connect(m_grid, &HeadsGrid::headActivated, this, &ViewTabs::openHead);
    connect(m_model, &ModelView::headActivated, this, &ViewTabs::modelHeadActivated);
    // The cell clicked on a grid head is selected as if clicked in the head view.
    connect(m_grid, &HeadsGrid::cellActivated, this, [this](int head, int query, int key) {
        m_head_view->highlightCell(query, key);
        selectInWalkthrough(head, query);
    });
    // One selected head: the grid frames it, the diagram highlights it, the walkthrough follows it.
    connect(m_head_view, &HeadView::headChanged, this, &ViewTabs::selectHead);
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
    m_stale.fill(true);
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
    if (m_result && any && !every)  // every key hidden would leave nothing: shown as computed
        m_shown = std::make_shared<const AttentionResult>(AttentionDisplay::withHiddenKeys(*m_result, hidden));
    else
        m_shown = m_result;
    requestPercentile();
}

void ViewTabs::requestPercentile()
{
    const std::shared_ptr<const AttentionResult> shown = m_shown;
    if (m_percentile_of && m_percentile_of != shown) {  // the job for another result stops
        m_percentile_stop->store(true);
        m_percentile_of.reset();
    }
    if (m_scale != ColorScale::Percentile || !shown || m_percentile_of == shown ||
        !HeatmapData::percentileMissing(*shown))
        return;
    m_percentile_of = shown;
    m_percentile_stop = std::make_shared<std::atomic<bool>>(false);
    QPointer<ViewTabs> self(this);
    viewWorkers().start([self, shown, stop = m_percentile_stop] {
        if (!HeatmapData::computePercentile(*shown, [stop] { return stop->load(); }))
            return;
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, shown] {
                if (!self || self->m_percentile_of != shown)
                    return;
                self->m_percentile_of.reset();
                self->m_grid->percentileArrived();  // the views read it from the result now
                self->m_head_view->percentileArrived();
            },
            Qt::QueuedConnection);
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
    for (View view : {View::Grid, View::Head, View::Compare, View::Lines, View::QueryKey, View::Walkthrough})
        m_stale[size_t(view)] = true;
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
    if (tab < 0 || tab >= int(kAllViews.size()) || !m_stale[size_t(tab)] || !m_result)
        return;
    m_stale[size_t(tab)] = false;
    switch (View(tab)) {
        case View::Grid:
            m_grid->setResult(m_shown);
            break;
        case View::Head:
            m_head_view->setResult(m_shown);
            break;
        case View::Compare:
            m_compare->setResult(m_shown);
            break;  // it also defers while hidden
        case View::Lines:
            m_lines->setResult(m_shown);
            if (m_lines->canvas()->head() != LinesCanvas::kAllHeads)
                m_lines->setHead(std::min(m_head, m_result->numHeads() - 1));
            break;
        case View::Shapes:
            m_shapes->setResult(m_result);
            break;
        case View::Walkthrough:  // the numbers as computed; it names the keys the heatmaps hide
            m_walkthrough->setHiddenKeys(shownHiddenKeys());
            m_walkthrough->setResult(m_result);
            m_walkthrough->select(m_walk_head, m_walk_query);
            break;
        case View::Model:  // these two show the model run, not the result
        case View::Rollout:
            break;
        case View::QueryKey:  // Q and K as computed; the hidden keys' flags for marking them
            m_query_key->setResult(m_shown);
            m_query_key->setHead(std::min(m_head, m_result->numHeads() - 1));
            break;
    }
}

void ViewTabs::setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
{
    m_model->setModelRun(std::move(run), tokens);
}

void ViewTabs::clearModel()
{
    m_model->clearModel();
    m_rollout->clearModel();
}

void ViewTabs::setColorMap(ColorMaps::Map map)
{
    m_model->setColorMap(map);
    m_rollout->setColorMap(map);
    m_grid->setColorMap(map);
    m_head_view->setColorMap(map);
    m_compare->setColorMap(map);
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
    switch (currentView()) {
        case View::Grid:
            m_grid->render(painter, target);
            break;
        case View::Head:
            m_head_view->render(painter, target);
            break;
        case View::Compare:
            m_compare->computeNow();  // an exported picture shows the heads chosen, never "computing"
            m_compare->renderFigure(painter, target);
            break;
        case View::Lines:
            m_lines->canvas()->computeNow();  // a long input's lines, never "finding the strongest keys"
            m_lines->canvas()->paint(*painter, target);
            break;
        case View::Shapes:
            if (m_shapes->showsModelChain()) {
                if (const ModelChainPainter* chain = m_shapes->modelView()->chain())
                    chain->paint(*painter, target);
            } else if (const ShapeDiagramPainter* diagram = m_shapes->view()->diagram()) {
                diagram->paint(*painter, target);
            }
            break;
        case View::Walkthrough: {
            // The page as on screen, scaled to the target; a long input's tables finished first.
            m_walkthrough->computeNow();
            const QSize size = m_walkthrough->size();
            painter->save();
            painter->translate(target.topLeft());
            painter->scale(target.width() / std::max(1, size.width()), target.height() / std::max(1, size.height()));
            m_walkthrough->render(painter, QPoint());
            painter->restore();
            break;
        }
        case View::Model:
            m_model->computeNow();  // the chosen order and frames, never a grid still waiting for them
            m_model->canvas()->gridPainter().paint(*painter, target, ModelGridPainter::Output::Picture);
            break;
        case View::Rollout:
            m_rollout->computeNow();  // an exported picture shows the current choices, never "computing"
            m_rollout->painter().paint(*painter, target);
            break;
        case View::QueryKey:
            m_query_key->computeNow();  // a long input's scatter, never the last one
            m_query_key->painter().paint(*painter, target);
            break;
    }
}

QSize ViewTabs::currentViewSize() const
{
    switch (currentView()) {
        case View::Head:
            return m_head_view->plot()->size();
        case View::Compare:
            return m_compare->figure()->size();
        case View::Lines:
            return m_lines->canvas()->size();
        case View::Shapes:
            return m_shapes->showsModelChain() ? m_shapes->modelView()->size() : m_shapes->view()->size();
        case View::Walkthrough:
            return m_walkthrough->size();
        case View::Model:
            return m_model->canvas()->size();
        case View::Rollout:
            return m_rollout->canvas()->size();
        case View::QueryKey:
            return m_query_key->size();
        default:
            return m_grid->size();
    }
}

QString ViewTabs::currentExportName() const
{
    switch (currentView()) {
        case View::Head:
            return QStringLiteral("attention-head-%1.png").arg(m_head_view->head());
        case View::Compare:
            return QStringLiteral("attention-compare.png");
        case View::Lines:
            return QStringLiteral("attention-lines.png");
        case View::Shapes:
            return QStringLiteral("attention-shapes.png");
        case View::Walkthrough:
            return QStringLiteral("attention-walkthrough.png");
        case View::Model:
            return QStringLiteral("attention-model.png");
        case View::Rollout:
            return QStringLiteral("attention-rollout.png");
        case View::QueryKey:
            return QStringLiteral("attention-query-key-%1.png").arg(m_head);
        default:
            return QStringLiteral("attention-heads.png");
    }
}

}  // namespace attn
