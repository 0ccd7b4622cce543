#include "ui/shell/GenerateLink.h"

#include "ui/controller/AttentionController.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/generate/GenerateView.h"

namespace attn {

GenerateLink::GenerateLink(AttentionController* controller, ViewTabs* tabs, QObject* parent)
    : QObject(parent), m_controller(controller), m_view(dynamic_cast<GenerateView*>(tabs->page(View::Generate)))
{
    connect(controller, &AttentionController::modelRunReady, m_view, [this](std::shared_ptr<const ModelRun> run) {
        if (m_controller->modelRunIsGiven() || !run)
            return;
        m_view->setMemoryBudget(m_controller->memoryBudget());
        m_view->setPrompt(m_controller->model(), run->token_ids);
    });
    connect(controller, &AttentionController::modelClosed, m_view, &GenerateView::clearModel);
    connect(m_view, &GenerateView::stepRunChosen, controller, &AttentionController::showModelRun);
}

}  // namespace attn
