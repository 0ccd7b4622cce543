#pragma once

#include <QString>

class QMimeData;

namespace attn {

class MainWindow;

// What dropping onto the window does: the first local path dragged is accepted; a folder opens as a
// Hugging Face model, a session file (SessionActions::isSessionFile) as a session, another file as
// weights.
class FileDrop {
public:
    // The dragged path the window takes (empty: the drag is refused).
    static QString acceptedPath(const QMimeData* data);
    static void open(MainWindow& window, const QString& path);
};

}  // namespace attn
