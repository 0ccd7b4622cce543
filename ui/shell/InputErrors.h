#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QLineEdit;

namespace attn {

class MessageBar;
class TokenStrip;
struct AttentionResult;

// What the window says about its input fields: why the sentence is not computed, under the field
// (the views keep the last good result, and its tokens are marked stale), and why the keys' sentence
// is refused, on the field and in the message bar.
class InputErrors : public QObject {
    Q_OBJECT
public:
    struct Widgets {
        QLineEdit* sentence;
        QLabel* sentence_error;
        TokenStrip* tokens;
        QLineEdit* kv_sentence;
        MessageBar* message;
    };
    InputErrors(const Widgets& widgets, QObject* parent);

    static QString sentenceToolTip();
    static QString kvToolTip();  // the keys' sentence field, when it shows no error

    // `shown` is the result the views show (null: none yet); an empty message clears the error.
    void showSentenceError(const QString& message, const AttentionResult* shown);
    void showKvSentenceError(const QString& message);

private:
    Widgets m_widgets;
};

}  // namespace attn
