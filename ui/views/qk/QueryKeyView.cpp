#include "ui/views/qk/QueryKeyView.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace attn {

QueryKeyView::QueryKeyView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(320, 240);
    setToolTip(tr("Each token's query (disc) and key (square) of the selected head; a query near a key attends to "
                  "it. Hover a point for its token and position."));
}

void QueryKeyView::setResult(std::shared_ptr<const AttentionResult> result)
{
    m_painter.setResult(std::move(result));
    update();
}

void QueryKeyView::setHead(int head)
{
    m_painter.setHead(head);
    update();
}

void QueryKeyView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    m_painter.paint(painter, rect());
}

void QueryKeyView::mouseMoveEvent(QMouseEvent* event)
{
    const QString text = describeAt(event->position());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

}  // namespace attn
