#include "ui/views/model/ModelGridCanvas.h"

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace attn {

ModelGridCanvas::ModelGridCanvas(QWidget* parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setCursor(Qt::PointingHandCursor);
    setAttribute(Qt::WA_OpaquePaintEvent);  // the painter fills every pixel
}

void ModelGridCanvas::setRun(std::shared_ptr<const ModelRun> run, const QString& caption)
{
    m_painter.setRun(std::move(run));
    m_painter.setCaption(caption);
    m_metrics.assign(size_t(m_painter.numLayers() * m_painter.numHeads()), std::nullopt);
    m_scores.assign(m_metrics.size(), std::nullopt);
    m_hovered = -1;
    m_hovered_cell = -1;
    update();
}

void ModelGridCanvas::setCurrent(int layer, int head)
{
    m_painter.setCurrent(layer, head);
    update();
}

HeadMetric ModelGridCanvas::metric(int layer, int head) const
{
    std::optional<HeadMetric>& cached = m_metrics[size_t(layer * m_painter.numHeads() + head)];
    if (!cached)
        cached = computeHeadMetrics(m_painter.run()->attention, layer, head);
    return *cached;
}

void ModelGridCanvas::setMetrics(const std::vector<HeadMetric>& metrics)
{
    if (metrics.size() == m_metrics.size())
        std::copy(metrics.begin(), metrics.end(), m_metrics.begin());
}

HeadScore ModelGridCanvas::score(int layer, int head) const
{
    std::optional<HeadScore>& cached = m_scores[size_t(layer * m_painter.numHeads() + head)];
    if (!cached)
        cached = HeadScores::score(m_painter.run()->attention, layer, head, m_painter.run()->token_ids, {});
    return *cached;
}

void ModelGridCanvas::setScores(const std::vector<HeadScore>& scores)
{
    if (scores.size() == m_scores.size())
        std::copy(scores.begin(), scores.end(), m_scores.begin());
}

QString ModelGridCanvas::describeHead(int layer, int head, int query, int key) const
{
    const HeadMetric m = metric(layer, head);
    const HeadScore s = score(layer, head);
    QString text = tr("<b>layer %1, head %2</b><br>entropy %3 · max %4<br>diagonal %5 · previous %6 · first %7")
                       .arg(layer)
                       .arg(head)
                       .arg(m.entropy, 0, 'f', 3)
                       .arg(m.max, 0, 'f', 3)
                       .arg(m.diagonal, 0, 'f', 3)
                       .arg(s.previous, 0, 'f', 3)
                       .arg(m.first, 0, 'f', 3);
    const AttentionMaps& maps = m_painter.run()->attention;
    if (query >= 0 && key >= 0 && query < maps.seqLen() && key < maps.seqLen()) {
        const auto token = [this](int i) {
            return i < m_tokens.size() ? QStringLiteral("'%1'").arg(m_tokens[i].toHtmlEscaped()) : QString::number(i);
        };
        text += key < maps.rowLength(query) ? tr("<br>query %1 → key %2: %3")
                                                  .arg(token(query), token(key))
                                                  .arg(maps.at(layer, head, query, key), 0, 'f', 3)
                                            : tr("<br>query %1 → key %2: masked").arg(token(query), token(key));
    }
    return text + tr("<br><i>click or Enter: open this head</i>");
}

QRect ModelGridCanvas::thumbnailRect(int layer, int head) const
{
    const ModelGridPainter::Layout layout = m_painter.layoutFor(size());
    return layout.thumbnails.value(layer * m_painter.numHeads() + head).toAlignedRect();
}

void ModelGridCanvas::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    m_painter.paint(painter, rect(), ModelGridPainter::Output::Screen, devicePixelRatioF());
    painter.end();
    emit painted();
}

void ModelGridCanvas::moveCurrent(int layer, int head)
{
    layer = std::clamp(layer, 0, m_painter.numLayers() - 1);
    head = std::clamp(head, 0, m_painter.numHeads() - 1);
    if (layer == m_painter.currentLayer() && head == m_painter.currentHead())
        return;
    setCurrent(layer, head);
    emit currentChanged(layer, head);
}

void ModelGridCanvas::mousePressEvent(QMouseEvent* event)
{
    const auto hit = m_painter.headAt(event->position(), size());
    if (!hit || event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    moveCurrent(hit->first, hit->second);
    emit headActivated(hit->first, hit->second);
}

void ModelGridCanvas::contextMenuEvent(QContextMenuEvent* event)
{
    const auto hit = m_painter.headAt(event->pos(), size());
    if (!hit)
        return QWidget::contextMenuEvent(event);
    emit headMenuRequested(hit->first, hit->second, event->globalPos());
}

void ModelGridCanvas::mouseMoveEvent(QMouseEvent* event)
{
    const auto hit = m_painter.headAt(event->position(), size());
    const int index = hit ? hit->first * m_painter.numHeads() + hit->second : -1;
    // The cell under the mouse (a reduced pixel covers several: the first of them).
    int query = -1, key = -1;
    if (hit) {
        const QRectF rect = m_painter.layoutFor(size()).thumbnails[index];
        const int seq_len = m_painter.run()->seqLen();
        query = std::clamp(int((event->position().y() - rect.top()) / rect.height() * seq_len), 0, seq_len - 1);
        key = std::clamp(int((event->position().x() - rect.left()) / rect.width() * seq_len), 0, seq_len - 1);
    }
    const int cell = hit ? query * m_painter.run()->seqLen() + key : -1;
    if (!hit) {  // an aggregate thumbnail says what it fuses
        const QString aggregate = m_painter.aggregateAt(event->position(), size());
        if (aggregate != m_hovered_aggregate) {
            m_hovered_aggregate = aggregate;
            if (aggregate.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(event->globalPosition().toPoint(), tr("<b>%1</b>").arg(aggregate.toHtmlEscaped()),
                                   this);
        }
    } else {
        m_hovered_aggregate.clear();
    }
    if (index == m_hovered && cell == m_hovered_cell)
        return;
    const bool new_head = index != m_hovered;
    m_hovered = index;
    m_hovered_cell = cell;
    if (!hit) {
        if (m_hovered_aggregate.isEmpty())
            QToolTip::hideText();
        emit headHovered(-1, -1);
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), describeHead(hit->first, hit->second, query, key), this,
                       thumbnailRect(hit->first, hit->second));
    if (new_head)
        emit headHovered(hit->first, hit->second);
}

void ModelGridCanvas::leaveEvent(QEvent* event)
{
    if (m_hovered >= 0) {
        m_hovered = -1;
        emit headHovered(-1, -1);
    }
    QWidget::leaveEvent(event);
}

void ModelGridCanvas::focusInEvent(QFocusEvent* event)
{
    if (m_painter.currentLayer() < 0 && m_painter.numLayers() > 0)
        moveCurrent(0, 0);
    QWidget::focusInEvent(event);
}

void ModelGridCanvas::keyPressEvent(QKeyEvent* event)
{
    if (m_painter.numLayers() == 0)
        return QWidget::keyPressEvent(event);
    const int layer = std::max(0, m_painter.currentLayer());
    const int head = std::max(0, m_painter.currentHead());
    // The arrows move between the slots on screen, whatever order the heads are drawn in.
    const int column = m_painter.columnOf(layer, head);
    const auto move_to = [this](int to_layer, int to_column) {
        to_layer = std::clamp(to_layer, 0, m_painter.numLayers() - 1);
        to_column = std::clamp(to_column, 0, m_painter.numHeads() - 1);
        moveCurrent(to_layer, m_painter.headIn(to_layer, to_column));
    };
    switch (event->key()) {
        case Qt::Key_Left:
            move_to(layer, column - 1);
            break;
        case Qt::Key_Right:
            move_to(layer, column + 1);
            break;
        case Qt::Key_Up:
            move_to(layer - 1, column);
            break;
        case Qt::Key_Down:
            move_to(layer + 1, column);
            break;
        case Qt::Key_Return:
        case Qt::Key_Enter:
            moveCurrent(layer, head);
            emit headActivated(layer, head);
            break;
        default:
            return QWidget::keyPressEvent(event);
    }
}

}  // namespace attn
