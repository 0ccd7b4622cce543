#pragma once

#include "ui/registry/ViewRegistry.h"

#include <QHash>
#include <QList>
#include <QObject>

#include <vector>

class QAction;
class QEvent;
class QKeyEvent;
class QWidget;

namespace attn {

enum class ActionId {
    OpenWeights,
    OpenModel,
    CloseModel,
    OpenSession,
    SaveSession,
    ExportImage,
    CopyImage,
    ExportData,
    Quit,
    NextHead,
    PreviousHead,
    NextLayer,
    PreviousLayer,
    ZoomIn,
    ZoomOut,
    ZoomWhole,
    FocusSentence,
    Causal,
    ValueNorms,
    InductionProbe,
    UserGuide,
    KeyboardShortcuts,
    About,
    AboutQt,
};

// Every action of the window, created once from one table (text, standard shortcut, tooltip),
// and one action per view (View menu) from ViewRegistry's table, after Quit; those with a shortcut are added to the owner widget so it works everywhere in the window.
// A shortcut of the table wins over a key the focused widget would take for itself (QLineEdit
// takes Ctrl+E as "end of line", and so does a spin box's editor): the window's shortcuts are
// the ones the menus promise. None of them is a standard editing key (copy, paste, undo, select
// all), so those stay with the field.
class ActionRegistry : public QObject {
    Q_OBJECT
public:
    explicit ActionRegistry(QWidget* owner);
    QAction* get(ActionId id) const { return m_actions.value(id); }
    QAction* view(View view) const { return m_view_actions[size_t(view)]; }  // shows the view's tab
    // Every shortcut of the table, in its order, as an HTML table of action and keys: made from
    // the actions themselves, so Help › Keyboard shortcuts is never out of date.
    QString shortcutsHtml() const;
    // Whether `key` is the shortcut of one of the enabled actions of the table.
    bool isShortcut(const QKeyEvent& key) const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* m_owner;
    QHash<ActionId, QAction*> m_actions;
    std::vector<QAction*> m_view_actions;  // in the order of View
    QList<QAction*> m_order;               // the table's order, the views' after Quit
};

}  // namespace attn
