#pragma once

#include <QFrame>

class QLabel;

namespace attn {

// A non-modal message across the top of the window (e.g. "model.npz: not a zip file"), closed
// with its button or replaced by the next message. Never blocks the window.
class MessageBar : public QFrame {
    Q_OBJECT
public:
    // What a message is about, so that it can be taken back once its cause is gone.
    enum class Subject { Other, Export, FileHeads };

    explicit MessageBar(QWidget* parent = nullptr);
    void showError(const QString& text, Subject subject = Subject::Other);
    void showInfo(const QString& text, Subject subject = Subject::Other);
    QString text() const;
    // Hides the message if it is about `subject` (an export that failed, now one succeeded; the
    // heads a file was split into, now the user chose them).
    void dismiss(Subject subject);

private:
    void showText(const QString& text, bool error, Subject subject);
    QLabel* m_label = nullptr;
    QString m_text;  // as given; the label's has break opportunities in long words
    Subject m_subject = Subject::Other;
};

}  // namespace attn
