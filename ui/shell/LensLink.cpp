#include "ui/shell/LensLink.h"

#include "core/model/ModelRun.h"
#include "core/model/ModelSession.h"
#include "ui/controller/AttentionController.h"
#include "ui/controller/LensMemory.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/lens/LensView.h"

namespace attn {

LensLink::LensLink(AttentionController* controller, ViewTabs* tabs, QObject* parent)
    : QObject(parent), m_controller(controller), m_tabs(tabs), m_lens(dynamic_cast<LensView*>(tabs->page(View::Lens)))
{
    connect(controller, &AttentionController::modelRunReady, m_lens, [this](std::shared_ptr<const ModelRun> run) {
        m_lens->setModel(m_controller->model());
        m_lens->setModelRun(std::move(run), m_controller->modelLabels());
        followTab();  // the tab may have been chosen before the model opened (--tab lens)
    });
    connect(controller, &AttentionController::layerChanged, m_lens, &LensView::setLayer);
    connect(controller, &AttentionController::modelClosed, m_lens, &LensView::clearModel);
    // The residual stream (L T C floats) is kept only while the tab that reads it is shown.
    connect(tabs, &QTabWidget::currentChanged, this, &LensLink::followTab);
    m_lens->setLayer(0);
    followTab();
}

void LensLink::followTab()
{
    const bool keep = m_tabs->currentWidget() == m_lens && lensFits();
    // The tab chosen while the model was still opening: the controller already keeps the stream,
    // but the first run was made without it. Asked again, a run without it is run once more.
    if (keep && m_controller->keepsResidualStream())
        m_controller->setKeepResidualStream(false);
    m_controller->setKeepResidualStream(keep);
}

bool LensLink::lensFits()
{
    const auto model = m_controller->model();
    const auto run = m_controller->modelRun();
    QString refusal;
    if (model && run)
        if (Status s = LensMemory::check(model->config(), run->seqLen(), m_lens->request().top_k,
                                         m_controller->memoryBudget());
            !s)
            refusal = tr("%1 (Settings \u203a Memory budget)").arg(s.error());
    m_lens->setRefusal(refusal);
    return refusal.isEmpty();
}

}  // namespace attn
