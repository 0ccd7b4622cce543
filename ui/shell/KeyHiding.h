#pragma once

#include <QObject>

class QPoint;

namespace attn {

class MainWindow;

// Keys hidden in the heatmaps from the token chips: a chip's context menu hides its key or shows
// it again (hiding the last key shown is refused in the message bar), and the chips of hidden keys
// are marked on the strip that shows the keys.
class KeyHiding : public QObject {
    Q_OBJECT
public:
    explicit KeyHiding(MainWindow& window);

    void toggle(int key);
    void showMenu(int key, const QPoint& global_position);
    void showOnStrips();  // the heatmap menu's hidden keys, on the keys' strip

private:
    MainWindow& m_window;
};

}  // namespace attn
