#include "ui/heatmap/HeatmapMouse.h"

#include "ui/heatmap/HeatmapPlot.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <cmath>
#include <limits>

namespace attn {

HeatmapMouse::HeatmapMouse(HeatmapPlot* plot, QCustomPlot* surface, QCPAxisRect* rect)
    : m_plot(plot), m_surface(surface), m_rect(rect)
{
    surface->setMouseTracking(true);
    surface->installEventFilter(this);
}

void HeatmapMouse::updateCursor()
{
    if (m_plot->isZoomable() && m_plot->isZoomed())
        m_surface->setCursor(m_drag.moved ? Qt::ClosedHandCursor : Qt::OpenHandCursor);
    else
        m_surface->unsetCursor();
}

bool HeatmapMouse::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_surface)
        return QObject::eventFilter(watched, event);
    switch (event->type()) {
        case QEvent::MouseMove: {
            const QPoint position = static_cast<QMouseEvent*>(event)->position().toPoint();
            int row = 0, column = 0;
            if (m_drag.pressed && m_plot->isZoomable() && m_plot->isZoomed()) {
                // Dragging pans: the matrix point under the mouse follows it.
                if (!m_drag.moved && (position - m_drag.start).manhattanLength() >= QApplication::startDragDistance()) {
                    m_drag.moved = true;
                    updateCursor();
                }
                if (m_drag.moved) {
                    QCPAxis* x = m_rect->axis(QCPAxis::atBottom);
                    QCPAxis* y = m_rect->axis(QCPAxis::atLeft);
                    const double columns = (x->pixelToCoord(m_drag.start.x()) - x->pixelToCoord(position.x())) *
                                           m_plot->blockShape().columns;
                    const double rows =
                        (y->pixelToCoord(m_drag.start.y()) - y->pixelToCoord(position.y())) * m_plot->blockShape().rows;
                    m_drag.start = position;
                    m_plot->panBy(columns, rows);
                }
            }
            if (m_plot->cellAt(position, &row, &column)) {
                const CellWindow drawn = m_plot->drawnWindow();
                const BlockShape blocks = m_plot->blockShape();
                const int drawn_row = (row - drawn.first_row) / blocks.rows;
                const int drawn_column = (column - drawn.first_column) / blocks.columns;
                emit m_plot->cellHovered(row, column,
                                         m_plot->isMasked(drawn_row, drawn_column)
                                             ? std::numeric_limits<double>::quiet_NaN()
                                             : double(m_plot->values()(drawn_row, drawn_column)));
            } else
                emit m_plot->hoverLeft();
            break;
        }
        case QEvent::Leave:
            emit m_plot->hoverLeft();
            break;
        case QEvent::MouseButtonPress: {
            auto* mouse = static_cast<QMouseEvent*>(event);
            if (mouse->button() == Qt::LeftButton)
                m_drag = {true, false, mouse->position().toPoint()};
            break;
        }
        case QEvent::MouseButtonRelease: {
            auto* mouse = static_cast<QMouseEvent*>(event);
            int row = 0, column = 0;
            const bool dragged = m_drag.moved;
            if (mouse->button() == Qt::LeftButton) {
                m_drag = {};
                updateCursor();
            }
            if (mouse->button() == Qt::LeftButton && !dragged &&
                m_plot->cellAt(mouse->position().toPoint(), &row, &column))
                emit m_plot->cellClicked(row, column);
            break;
        }
        case QEvent::MouseButtonDblClick:
            if (m_plot->isZoomable() && static_cast<QMouseEvent*>(event)->button() == Qt::LeftButton &&
                m_plot->isZoomed()) {
                m_plot->resetZoom();
                return true;
            }
            break;
        case QEvent::Wheel:
            if (m_plot->isZoomable()) {
                // About the cursor; 1.25 times per notch (120 eighths of a degree), smoothly
                // for touchpads' smaller steps.
                auto* wheel = static_cast<QWheelEvent*>(event);
                const int delta = wheel->angleDelta().y() != 0 ? wheel->angleDelta().y() : wheel->angleDelta().x();
                if (delta != 0)
                    m_plot->zoomBy(std::pow(1.25, delta / 120.0), wheel->position());
                return true;
            }
            break;
        case QEvent::KeyPress:
            if (m_plot->isZoomable() && m_plot->isZoomed()) {
                // Arrows pan by an eighth of the view (with Shift, by one cell).
                auto* key = static_cast<QKeyEvent*>(event);
                const QRectF view = m_plot->viewWindow();
                const bool fine = key->modifiers() & Qt::ShiftModifier;
                const double across = fine ? 1.0 : std::max(1.0, std::round(view.width() / 8));
                const double down = fine ? 1.0 : std::max(1.0, std::round(view.height() / 8));
                switch (key->key()) {
                    case Qt::Key_Left:
                        m_plot->panBy(-across, 0);
                        return true;
                    case Qt::Key_Right:
                        m_plot->panBy(across, 0);
                        return true;
                    case Qt::Key_Up:
                        m_plot->panBy(0, -down);
                        return true;
                    case Qt::Key_Down:
                        m_plot->panBy(0, down);
                        return true;
                    default:
                        break;
                }
            }
            break;
        default:
            break;
    }
    return QObject::eventFilter(watched, event);
}

}  // namespace attn
