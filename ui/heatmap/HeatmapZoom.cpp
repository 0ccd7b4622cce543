#include "ui/heatmap/HeatmapZoom.h"

#include <algorithm>
#include <cmath>

namespace attn {

void HeatmapZoom::setShape(int rows, int columns)
{
    if (rows != m_rows || columns != m_columns)
        m_view = QRectF();
    m_rows = rows;
    m_columns = columns;
}

QRectF HeatmapZoom::viewWindow() const
{
    return isZoomed() ? m_view : QRectF(0, 0, m_columns, m_rows);
}

bool HeatmapZoom::setViewWindow(const QRectF& window)
{
    const double columns = m_columns;
    const double rows = m_rows;
    QRectF view;
    if (columns > 0 && rows > 0 && window.isValid()) {
        const double width = std::clamp(window.width(), std::min<double>(kMinZoomCells, columns), columns);
        const double height = std::clamp(window.height(), std::min<double>(kMinZoomCells, rows), rows);
        const double left = std::clamp(window.left(), 0.0, columns - width);
        const double top = std::clamp(window.top(), 0.0, rows - height);
        constexpr double kEpsilon = 1e-6;
        if (width < columns - kEpsilon || height < rows - kEpsilon)
            view = QRectF(left, top, width, height);
    }
    if (view == m_view)
        return false;
    m_view = view;
    return true;
}

QRectF HeatmapZoom::zoomedWindow(double factor, const QPointF* about) const
{
    const double columns = m_columns;
    const double rows = m_rows;
    if (columns <= 0 || rows <= 0 || !(factor > 0))
        return {};
    const QRectF view = viewWindow();
    const QPointF anchor = about ? *about : view.center();
    const double min_columns = std::min<double>(kMinZoomCells, columns);
    const double min_rows = std::min<double>(kMinZoomCells, rows);
    const double most = std::max(columns / min_columns, rows / min_rows);
    const double level = std::clamp(std::max(columns / view.width(), rows / view.height()) * factor, 1.0, most);
    const double width = std::clamp(columns / level, min_columns, columns);
    const double height = std::clamp(rows / level, min_rows, rows);
    return QRectF(anchor.x() - (anchor.x() - view.left()) * width / view.width(),
                  anchor.y() - (anchor.y() - view.top()) * height / view.height(), width, height);
}

QRect HeatmapZoom::visibleCells() const
{
    const QRectF view = viewWindow();
    const int first_column = std::clamp(int(std::floor(view.left() + 1e-9)), 0, m_columns);
    const int first_row = std::clamp(int(std::floor(view.top() + 1e-9)), 0, m_rows);
    const int end_column = std::clamp(int(std::ceil(view.right() - 1e-9)), first_column, m_columns);
    const int end_row = std::clamp(int(std::ceil(view.bottom() - 1e-9)), first_row, m_rows);
    return QRect(first_column, first_row, end_column - first_column, end_row - first_row);
}

CellWindow HeatmapZoom::wantedWindow(int reduced_side, BlockShape* blocks) const
{
    const int rows = m_rows;
    const int columns = m_columns;
    *blocks = attn::blockShape(rows, columns, reduced_side);
    if (!blocks->reduces() || !isZoomed())
        return {0, 0, rows, columns};
    const QRectF view = viewWindow();
    int first_row = std::clamp(int(std::floor(view.top() + 1e-9)), 0, rows);
    int first_column = std::clamp(int(std::floor(view.left() + 1e-9)), 0, columns);
    const int end_row = std::clamp(int(std::ceil(view.bottom() - 1e-9)), first_row, rows);
    const int end_column = std::clamp(int(std::ceil(view.right() - 1e-9)), first_column, columns);
    *blocks = attn::blockShape(end_row - first_row, end_column - first_column, reduced_side);
    const int f = blocks->rows;
    const int g = blocks->columns;
    first_row = first_row / f * f;
    first_column = first_column / g * g;
    return {first_row, first_column, std::min(rows, (end_row + f - 1) / f * f) - first_row,
            std::min(columns, (end_column + g - 1) / g * g) - first_column};
}

}  // namespace attn
