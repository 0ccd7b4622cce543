#pragma once

#include <QHash>
#include <QObject>

class QAction;
class QWidget;

namespace attn {

enum class ActionId {
    OpenWeights,
    ExportImage,
    CopyImage,
    ExportData,
    Quit,
    ViewGrid,
    ViewHead,
    ViewCompare,
    ViewLines,
    ViewShapes,
    ViewWalkthrough,
    NextHead,
    PreviousHead,
    FocusSentence,
    Causal,
    About,
};

// Every action of the window, created once from one table (text, standard shortcut, tooltip),
// added to the owner widget so its shortcut works everywhere in the window.
class ActionRegistry : public QObject {
    Q_OBJECT
public:
    explicit ActionRegistry(QWidget* owner);
    QAction* get(ActionId id) const { return m_actions.value(id); }

private:
    QHash<ActionId, QAction*> m_actions;
};

}  // namespace attn
