#pragma once

#include <QObject>

namespace attn {

class AttentionController;
class GenerateView;
class ViewTabs;

// The Generate tab joined to the window: each run of the sentence gives the tab its model and
// prompt, and each step the tab shows goes to every view as the run in hand
// (AttentionController::showModelRun), whose runs are then not prompts.
class GenerateLink : public QObject {
    Q_OBJECT

public:
    GenerateLink(AttentionController* controller, ViewTabs* tabs, QObject* parent);

private:
    AttentionController* m_controller;
    GenerateView* m_view;
};

}  // namespace attn
