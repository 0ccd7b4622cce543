#include "ui/views/shapes/ModelChainView.h"

#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace attn {

ModelChainView::ModelChainView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ModelChainView::setModel(const ModelConfig& config, int seq_len)
{
    m_chain.emplace(config, seq_len);
    m_chain->setInteractive(true);
    m_hits.clear();
    update();
}

void ModelChainView::clearModel()
{
    m_chain.reset();
    m_hits.clear();
    update();
}

QRectF ModelChainView::boxRect(ModelChainPainter::Box box) const
{
    if (!m_chain)
        return {};
    if (m_hits.isEmpty()) {  // laid out by painting into a throwaway image of the widget's size
        QImage scratch(size(), QImage::Format_RGB32);
        QPainter painter(&scratch);
        m_hits = m_chain->paint(painter, rect(), PaintTarget::Screen);
    }
    for (const ModelChainPainter::HitRegion& hit : m_hits)
        if (hit.box == box)
            return hit.rect;
    return {};
}

std::optional<ModelChainPainter::Box> ModelChainView::boxAt(QPointF point) const
{
    for (const ModelChainPainter::HitRegion& hit : m_hits)
        if (hit.rect.contains(point))
            return hit.box;
    return std::nullopt;
}

void ModelChainView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    if (!m_chain) {
        painter.fillRect(rect(), Qt::white);
        return;
    }
    m_hits = m_chain->paint(painter, rect(), PaintTarget::Screen);
}

void ModelChainView::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_chain)
        return;
    const auto box = boxAt(event->position());
    m_chain->setHovered(box.value_or(ModelChainPainter::Box::TokenIds), box.has_value());
    setCursor(box == ModelChainPainter::Box::Attention ? Qt::PointingHandCursor : Qt::ArrowCursor);
    if (box)
        QToolTip::showText(event->globalPosition().toPoint(), m_chain->toolTip(*box), this);
    else
        QToolTip::hideText();
    update();
}

void ModelChainView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && boxAt(event->position()) == ModelChainPainter::Box::Attention)
        emit attentionActivated();
    else
        QWidget::mousePressEvent(event);
}

}  // namespace attn
