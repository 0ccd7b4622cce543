#include "ui/shell/MainWindow.h"

// What the controller reports to the window: a new result, and a refused setting or file shown
// beside its cause.
#include "core/pipeline/AttentionResult.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/BreakableText.h"
#include "ui/shell/LayerChooser.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/ResultStatus.h"
#include "ui/shell/SettingsPanel.h"
#include "ui/shell/TokenStrip.h"
#include "ui/shell/ViewTabs.h"

#include <QAction>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>

#include <utility>

namespace attn {

void MainWindow::showResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    m_tokens->setStale(false);
    QStringList labels;
    for (const Token& token : m_result->input.tokens)
        labels.append(token.text);
    if (m_controller->hasModel())
        updateModelPieces();
    else
        m_tokens->setTokens(labels);
    QStringList key_labels;
    for (const Token& token : m_result->kv_input.tokens)
        key_labels.append(token.text);
    m_kv_tokens->setTokens(key_labels);
    m_kv_tokens->setVisible(m_result->isCross());
    // The keys' strip shows the padding; the other one shows none.
    m_tokens->setPadding(m_result->isCross() ? std::vector<bool>{} : m_result->trace.key_padding);
    m_kv_tokens->setPadding(m_result->isCross() ? m_result->trace.key_padding : std::vector<bool>{});
    m_tabs->setResult(m_result);  // the visible view now, the others when they are shown
    showHiddenKeys();
    m_panel->showResult(*m_result);
    m_status->showResult(*m_result);
}

void MainWindow::showError(SettingField field, const QString& raw_message)
{
    QString message = raw_message;
    if (field == SettingField::Weights && !message.isEmpty() && !m_opening_file.isEmpty())
        if (const int heads = std::exchange(m_heads_from_field, 0); heads > 0)
            message = tr("%1 does not say how many heads it has, and the %2 heads of the Heads field do not fit it "
                         "(%3). Set Heads to the file's number of heads and open it again.")
                          .arg(QFileInfo(m_opening_file).fileName())
                          .arg(heads)
                          .arg(message);
    m_panel->setFieldError(field, message);
    if (field == SettingField::Model) {
        showModelError(message);
        return;
    }
    if (field == SettingField::Layer && m_controller->hasModel()) {
        m_layer_chooser->setToolTip(message);
        if (!message.isEmpty())
            m_message->showError(tr("Layer: %1").arg(message));
        return;
    }
    if ((field == SettingField::Weights || field == SettingField::Layer) && !message.isEmpty()) {
        if (std::exchange(m_restoring_file, false))
            m_message->showError(tr("The saved weights could not be loaded; using random weights. %1").arg(message));
        else if (m_controller->hasModel())
            m_message->showError(tr("Weights not loaded, the model in use stays: %1").arg(message));
        else
            m_message->showError(tr("Weights not loaded, the previous weights stay in use: %1").arg(message));
        if (!std::exchange(m_opening_file, QString()).isEmpty())
            updateRecentMenu();
    }
    if (field == SettingField::Sentence) {
        m_sentence->setToolTip(message.isEmpty() ? tr("The sentence: every keystroke recomputes every head (Ctrl+L)")
                                                 : message);
        m_sentence->setProperty("error", message);
        m_sentence->setStyleSheet(
            message.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 1px solid #c62828; border-radius: 3px; }"));
        // The views keep the last good result: say so where the user looks, and mark its tokens.
        const bool stale = !message.isEmpty() && m_result;
        m_sentence_error->setText(breakableText(
            message.isEmpty() ? QString()
            : stale ? (m_result->seqLen() == 1 ? tr("Not computed: %1. The views show the previous input (%2 token).")
                                               : tr("Not computed: %1. The views show the previous input (%2 tokens)."))
                          .arg(message, QLocale().toString(m_result->seqLen()))
                    : tr("Not computed: %1.").arg(message)));
        m_sentence_error->setVisible(!message.isEmpty());
        m_tokens->setStale(stale);
        // Said once, under the field (in Text and Token ids mode alike): not again in the message bar.
    }
    if (field == SettingField::KvSentence) {
        m_kv_sentence->setToolTip(message.isEmpty() ? kvToolTip() : message);
        m_kv_sentence->setStyleSheet(
            message.isEmpty() ? QString() : QStringLiteral("border: 1px solid #c62828; border-radius: 3px;"));
        m_kv_sentence->setProperty("error", message);
        const QString prefix = tr("Keys and values: ");
        if (!message.isEmpty())
            m_message->showError(prefix + message);
        else if (m_message->text().startsWith(prefix))
            m_message->hide();
    }
}

}  // namespace attn
