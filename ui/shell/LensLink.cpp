#include "ui/shell/LensLink.h"

#include "ui/controller/AttentionController.h"
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
    m_controller->setKeepResidualStream(m_tabs->currentWidget() == m_lens);
}

}  // namespace attn
