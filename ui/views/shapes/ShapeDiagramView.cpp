#include "ui/views/shapes/ShapeDiagramView.h"

#include "core/pipeline/AttentionResult.h"
#include "ui/views/shapes/ShapeDiagramExport.h"

#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace attn {

ShapeDiagramView::ShapeDiagramView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

ShapeDiagramView::~ShapeDiagramView() = default;

void ShapeDiagramView::setResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    rebuild();
}

void ShapeDiagramView::setBatch(int batch)
{
    batch = std::max(1, batch);
    if (batch == m_batch)
        return;
    m_batch = batch;
    rebuild();
}

void ShapeDiagramView::setHead(int head)
{
    head = std::max(0, head);
    if (head == m_head)
        return;
    m_head = head;
    if (m_diagram)
        m_diagram->setSelectedHead(m_head);
    m_hits_valid = false;
    update();
}

void ShapeDiagramView::rebuild()
{
    if (m_result && m_result->numHeads() > 0 && m_result->seqLen() > 0) {
        m_head = std::min(m_head, m_result->numHeads() - 1);
        m_diagram = ShapeDiagramExport::painterFor(*m_result, m_batch, m_head);
    } else {
        m_diagram.reset();
    }
    m_hovered = -1;
    m_hits_valid = false;
    update();
}

void ShapeDiagramView::layoutHits() const
{
    if (m_hits_valid)
        return;
    m_hits.clear();
    if (m_diagram) {
        // Hover before the first paint: the layout needs the same font metrics as the screen,
        // so draw once into a scratch image of the widget's size.
        QImage scratch(size().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&scratch);
        m_hits = m_diagram->paint(painter, QRectF(rect()), PaintTarget::Screen);
    }
    m_hits_valid = true;
}

int ShapeDiagramView::stepAt(QPointF point) const
{
    layoutHits();
    for (const auto& hit : m_hits)
        if (hit.rect.contains(point))
            return hit.step;
    return -1;
}

QString ShapeDiagramView::toolTipAt(QPointF point) const
{
    const int step = stepAt(point);
    return step >= 0 && m_diagram ? m_diagram->toolTip(step) : QString();
}

void ShapeDiagramView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    if (!m_diagram) {
        painter.fillRect(rect(), Qt::white);
        painter.setPen(Qt::darkGray);
        painter.drawText(rect(), Qt::AlignCenter, tr("No computation yet"));
        return;
    }
    m_diagram->setHoveredStep(m_hovered);
    m_hits = m_diagram->paint(painter, QRectF(rect()), PaintTarget::Screen);
    m_hits_valid = true;
}

void ShapeDiagramView::resizeEvent(QResizeEvent* event)
{
    m_hits_valid = false;
    QWidget::resizeEvent(event);
}

void ShapeDiagramView::mouseMoveEvent(QMouseEvent* event)
{
    const int step = stepAt(event->position());
    if (step != m_hovered) {
        m_hovered = step;
        update();
    }
    QWidget::mouseMoveEvent(event);
}

void ShapeDiagramView::leaveEvent(QEvent* event)
{
    if (m_hovered != -1) {
        m_hovered = -1;
        update();
    }
    QWidget::leaveEvent(event);
}

bool ShapeDiagramView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
}

}  // namespace attn
