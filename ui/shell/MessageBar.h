#pragma once

#include <QFrame>

class QLabel;

namespace attn {

// A non-modal message across the top of the window (e.g. "model.npz: not a zip file"), closed
// with its button or replaced by the next message. Never blocks the window.
class MessageBar : public QFrame {
    Q_OBJECT
public:
    explicit MessageBar(QWidget* parent = nullptr);
    void showError(const QString& text);
    void showInfo(const QString& text);
    QString text() const;

private:
    void showText(const QString& text, bool error);
    QLabel* m_label = nullptr;
};

}  // namespace attn
