#pragma once

#include "core/base/Result.h"
#include "core/io/Session.h"

#include <QObject>
#include <QString>

class QMenu;

namespace attn {

class AppSettings;
class MainWindow;
class RecentItems;

// File › Save session, Open session and Recent sessions (docs/sessions.md), and a session file
// dropped onto the window. A session holds what the window shows: the model folder and its layer
// and input (text or token ids), or the settings panel's weights and the sentence; the keys'
// sentence and padded keys; the head, the tab; the heatmap options, hidden tokens and value norms;
// the Attribution tab's target and foil. Opening checks the whole file first: a refusal is said in
// the message bar and nothing changes; once checked, values the file leaves out go back to their
// defaults, so the window shows what the command line with --session computes.
class SessionActions : public QObject {
    Q_OBJECT
public:
    SessionActions(MainWindow& window, AppSettings* settings, QMenu* recent_menu);

    Session current() const;
    Status saveSession(const QString& path);
    Status openSession(const QString& path);
    void saveInteractively();
    void openInteractively();

    // Whether a dropped file is a session rather than weights: a .json file whose beginning says
    // "attention-lab-session".
    static bool isSessionFile(const QString& path);

private:
    Status apply(const Session& session);

    MainWindow& m_window;
    RecentItems* m_recent;
    // A model's head and tab, set once its first result is shown (a head is clamped to the heads
    // of the result shown, which until then is the previous model's).
    QMetaObject::Connection m_pending_head;
};

}  // namespace attn
