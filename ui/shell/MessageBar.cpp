#include "ui/shell/MessageBar.h"

#include "ui/shell/BreakableText.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace attn {

MessageBar::MessageBar(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("MessageBar"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 4, 4, 4);
    m_label = new QLabel(this);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss this message"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    layout->addWidget(m_label, 1);
    layout->addWidget(close);
    hide();
}

void MessageBar::showError(const QString& text, Subject subject)
{
    showText(text, true, subject);
}
void MessageBar::showInfo(const QString& text, Subject subject)
{
    showText(text, false, subject);
}
void MessageBar::dismiss(Subject subject)
{
    if (m_subject == subject)
        hide();
}
QString MessageBar::text() const
{
    return isVisibleTo(parentWidget()) ? m_text : QString();
}

void MessageBar::showText(const QString& text, bool error, Subject subject)
{
    m_subject = subject;
    setStyleSheet(
        error ? QStringLiteral("#MessageBar { background: #fdecea; border: 1px solid #f5c2bd; border-radius: 4px; }"
                               " QLabel { color: #8e1c12; }")
              : QStringLiteral("#MessageBar { background: #e8f1fb; border: 1px solid #b9d3f0; border-radius: 4px; }"
                               " QLabel { color: #123d6b; }"));
    m_text = text;
    m_label->setText(breakableText(text));  // a long file name wraps instead of widening the window
    show();
}

}  // namespace attn
