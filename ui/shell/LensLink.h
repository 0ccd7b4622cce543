#pragma once

#include <QObject>

namespace attn {

class AttentionController;
class LensView;
class ViewTabs;

// The Lens tab joined to the window: each model run (with its model) and the layer chooser go to
// the tab, and the controller keeps the run's residual stream only while the tab is shown and the
// lens of the input fits the memory budget (LensMemory); one that does not is refused in the tab,
// saying what would fit.
class LensLink : public QObject {
    Q_OBJECT

public:
    LensLink(AttentionController* controller, ViewTabs* tabs, QObject* parent);

private:
    void followTab();
    bool lensFits();  // the current run's lens within the budget; else the tab says why
    AttentionController* m_controller;
    ViewTabs* m_tabs;
    LensView* m_lens;
};

}  // namespace attn
