#pragma once

#include <QObject>

class QDockWidget;
class QMenu;

namespace attn {

class MainWindow;

// The window's menu bar, built from the ActionRegistry: File, View, Model, Examples, Help, and what
// their actions do when they need only the window's widgets (quit, heads, zoom, the sentence's
// focus, the help boxes). The recent lists and the Examples menu are handed to FileActions and
// ModelActions, which fill them.
class WindowMenus : public QObject {
    Q_OBJECT
public:
    WindowMenus(MainWindow& window, QDockWidget* settings_dock);

    QMenu* recentFiles() const { return m_recent_files; }
    QMenu* recentModels() const { return m_recent_models; }
    QMenu* recentSessions() const { return m_recent_sessions; }
    QMenu* examples() const { return m_examples; }

private:
    void connectActions();
    void showKeyboardShortcuts();
    void showAbout();

    MainWindow& m_window;
    QMenu* m_recent_files = nullptr;
    QMenu* m_recent_models = nullptr;
    QMenu* m_recent_sessions = nullptr;
    QMenu* m_examples = nullptr;
};

}  // namespace attn
