#include "ui/shell/HeadAblationMenu.h"

#include "ui/controller/AttentionController.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/ablation/AblationView.h"
#include "ui/views/attribution/AttributionView.h"
#include "ui/views/model/ModelView.h"

#include <QMenu>

#include <algorithm>

namespace attn {

HeadAblationMenu::HeadAblationMenu(AttentionController* controller, ViewTabs* tabs, QObject* parent)
    : QObject(parent), m_controller(controller)
{
    connect(tabs->modelView(), &ModelView::headMenuRequested, this, &HeadAblationMenu::popup);
    connect(tabs->attributionView(), &AttributionView::headMenuRequested, this, &HeadAblationMenu::popup);
    // The Ablation scan tab: each run with its model, and a head clicked there ablated.
    auto* scan = dynamic_cast<AblationView*>(tabs->page(View::Ablation));
    connect(controller, &AttentionController::modelRunReady, scan,
            [scan, controller](std::shared_ptr<const ModelRun> run) {
                scan->setModel(controller->model());
                scan->setModelRun(std::move(run), controller->modelLabels());
            });
    connect(controller, &AttentionController::modelClosed, scan, &AblationView::clearModel);
    connect(scan, &AblationView::headAblationRequested, controller, &AttentionController::ablateHead);
}

void HeadAblationMenu::fill(QMenu& menu, int layer, int head)
{
    const auto& ablated = m_controller->ablatedHeads();
    const auto self = std::find_if(ablated.begin(), ablated.end(),
                                   [&](const AblatedHead& a) { return a.layer == layer && a.head == head; });
    const bool is_ablated = self != ablated.end();
    const auto ablate = [&](HeadAblation mode, const QString& name) {
        QAction* action = menu.addAction(tr("Ablate head %1:%2 (%3)").arg(layer).arg(head).arg(name));
        action->setCheckable(true);
        action->setChecked(is_ablated && self->mode == mode);
        connect(action, &QAction::triggered, m_controller,
                [controller = m_controller, layer, head, mode] { controller->ablateHead(layer, head, mode); });
    };
    ablate(HeadAblation::Zero, tr("zero"));
    ablate(HeadAblation::Mean, tr("mean"));
    menu.addSeparator();
    QAction* restore = menu.addAction(tr("Restore head %1:%2").arg(layer).arg(head));
    restore->setEnabled(is_ablated);
    connect(restore, &QAction::triggered, m_controller,
            [controller = m_controller, layer, head] { controller->restoreHead(layer, head); });
    QAction* restore_all = menu.addAction(tr("Restore all heads"));
    restore_all->setEnabled(!ablated.empty());
    connect(restore_all, &QAction::triggered, m_controller, &AttentionController::restoreAllHeads);
}

void HeadAblationMenu::popup(int layer, int head, const QPoint& global_pos)
{
    if (!m_controller->hasModel())
        return;
    auto* menu = new QMenu;
    menu->setAttribute(Qt::WA_DeleteOnClose);
    fill(*menu, layer, head);
    menu->popup(global_pos);
}

}  // namespace attn
