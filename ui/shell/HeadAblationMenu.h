#pragma once

#include <QObject>
#include <QPoint>

class QMenu;

namespace attn {

class AttentionController;
class ViewTabs;

// Head ablation in the window. The menu of a head right-clicked in a view that draws a model's
// heads (the Model tab's grid, the Attribution tab's heatmap): "Ablate head L:H (zero)", "(mean)",
// "Restore head", "Restore all heads", each a request to the controller, which runs the model
// again with the heads it holds ablated. And the Ablation scan tab joined to the window: each run
// with its model, a head clicked there ablated.
class HeadAblationMenu : public QObject {
    Q_OBJECT

public:
    HeadAblationMenu(AttentionController* controller, ViewTabs* tabs, QObject* parent);

    // The menu's actions for head (layer, head), added to `menu` (what the popup shows; tests
    // trigger them).
    void fill(QMenu& menu, int layer, int head);
    void popup(int layer, int head, const QPoint& global_pos);

private:
    AttentionController* m_controller;
};

}  // namespace attn
