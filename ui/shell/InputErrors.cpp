#include "ui/shell/InputErrors.h"

#include "core/pipeline/AttentionResult.h"
#include "ui/shell/BreakableText.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/TokenStrip.h"

#include <QLabel>
#include <QLineEdit>
#include <QLocale>

namespace attn {

InputErrors::InputErrors(const Widgets& widgets, QObject* parent) : QObject(parent), m_widgets(widgets)
{
}

QString InputErrors::sentenceToolTip()
{
    return tr("The sentence: every keystroke recomputes every head (Ctrl+L)");
}

QString InputErrors::kvToolTip()
{
    return tr(
        "Cross-attention: queries from the sentence above, keys and values from this one, as in "
        "forward(q, k, v). Empty: self-attention. Click a key's token to mask it as padding.");
}

void InputErrors::showSentenceError(const QString& message, const AttentionResult* shown)
{
    QLineEdit* sentence = m_widgets.sentence;
    sentence->setToolTip(message.isEmpty() ? sentenceToolTip() : message);
    sentence->setProperty("error", message);
    sentence->setStyleSheet(
        message.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 1px solid #c62828; border-radius: 3px; }"));
    // The views keep the last good result: say so where the user looks, and mark its tokens.
    const bool stale = !message.isEmpty() && shown;
    m_widgets.sentence_error->setText(breakableText(
        message.isEmpty() ? QString()
        : stale ? (shown->seqLen() == 1 ? tr("Not computed: %1. The views show the previous input (%2 token).")
                                        : tr("Not computed: %1. The views show the previous input (%2 tokens)."))
                      .arg(message, QLocale().toString(shown->seqLen()))
                : tr("Not computed: %1.").arg(message)));
    m_widgets.sentence_error->setVisible(!message.isEmpty());
    m_widgets.tokens->setStale(stale);
    // Said once, under the field (in Text and Token ids mode alike): not again in the message bar.
}

void InputErrors::showKvSentenceError(const QString& message)
{
    QLineEdit* kv_sentence = m_widgets.kv_sentence;
    kv_sentence->setToolTip(message.isEmpty() ? kvToolTip() : message);
    kv_sentence->setStyleSheet(message.isEmpty() ? QString()
                                                 : QStringLiteral("border: 1px solid #c62828; border-radius: 3px;"));
    kv_sentence->setProperty("error", message);
    const QString prefix = tr("Keys and values: ");
    if (!message.isEmpty())
        m_widgets.message->showError(prefix + message);
    else if (m_widgets.message->text().startsWith(prefix))
        m_widgets.message->hide();
}

}  // namespace attn
