// HeatmapPlot: zoom and pan. The view is a window of the matrix in its own cells; the axes show
// it over the drawn cells (HeatmapPlotReduction.cpp reduces the window again when the drawn
// cells are too coarse for it or do not cover it).
#include "ui/heatmap/HeatmapPlot.h"

#include "ui/heatmap/HeatmapPlotPrivate.h"

#include <algorithm>
#include <cmath>

namespace attn {

void HeatmapPlot::setZoomable(bool zoomable)
{
    m_zoomable = zoomable;
    d->plot->setFocusPolicy(zoomable ? Qt::ClickFocus : Qt::NoFocus);  // for the arrow keys
    if (!zoomable)
        resetZoom();
    updateCursor();
}

bool HeatmapPlot::isZoomed() const
{
    return !m_view.isEmpty();
}

QRectF HeatmapPlot::viewWindow() const
{
    return isZoomed() ? m_view : QRectF(0, 0, m_source_columns, m_source_rows);
}

void HeatmapPlot::setViewWindow(const QRectF& window)
{
    const double columns = m_source_columns;
    const double rows = m_source_rows;
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
        return;
    m_view = view;
    applyView();
    requestReduction();
    updateCursor();
}

void HeatmapPlot::resetZoom()
{
    setViewWindow(QRectF());
}

void HeatmapPlot::panBy(double columns, double rows)
{
    if (isZoomed())
        setViewWindow(m_view.translated(columns, rows));
}

// One zoom level for both axes (the window keeps the matrix's proportions) from the whole down
// to kMinZoomCells cells along each side, about the matrix point under `about`.
void HeatmapPlot::zoomBy(double factor, QPointF about)
{
    const double columns = m_source_columns;
    const double rows = m_source_rows;
    if (columns <= 0 || rows <= 0 || !(factor > 0))
        return;
    const QRectF view = viewWindow();
    QPointF anchor = view.center();
    if (about.x() >= 0 && about.y() >= 0 && d->rect->rect().contains(about.toPoint()) && m_values.size() > 0) {
        const double u = d->rect->axis(QCPAxis::atBottom)->pixelToCoord(about.x());
        const double v = d->rect->axis(QCPAxis::atLeft)->pixelToCoord(about.y());
        anchor = QPointF(std::clamp(m_drawn.first_column + (u + 0.5) * m_factor, 0.0, columns),
                         std::clamp(m_drawn.first_row + (v + 0.5) * m_factor, 0.0, rows));
    }
    const double min_columns = std::min<double>(kMinZoomCells, columns);
    const double min_rows = std::min<double>(kMinZoomCells, rows);
    const double most = std::max(columns / min_columns, rows / min_rows);
    const double level = std::clamp(std::max(columns / view.width(), rows / view.height()) * factor, 1.0, most);
    const double width = std::clamp(columns / level, min_columns, columns);
    const double height = std::clamp(rows / level, min_rows, rows);
    setViewWindow(QRectF(anchor.x() - (anchor.x() - view.left()) * width / view.width(),
                         anchor.y() - (anchor.y() - view.top()) * height / view.height(), width, height));
}

QRect HeatmapPlot::visibleCells() const
{
    const QRectF view = viewWindow();
    const int first_column = std::clamp(int(std::floor(view.left() + 1e-9)), 0, m_source_columns);
    const int first_row = std::clamp(int(std::floor(view.top() + 1e-9)), 0, m_source_rows);
    const int end_column = std::clamp(int(std::ceil(view.right() - 1e-9)), first_column, m_source_columns);
    const int end_row = std::clamp(int(std::ceil(view.bottom() - 1e-9)), first_row, m_source_rows);
    return QRect(first_column, first_row, end_column - first_column, end_row - first_row);
}

// The view on the drawn cells: drawn cell c spans c - 0.5 .. c + 0.5 on its axis and matrix
// cells first + c * factor .. first + (c + 1) * factor.
void HeatmapPlot::applyView()
{
    QCPAxis* x = d->rect->axis(QCPAxis::atBottom);
    QCPAxis* y = d->rect->axis(QCPAxis::atLeft);
    const bool drawn_whole = m_drawn == CellWindow{0, 0, m_full_rows, m_full_columns};
    if (!isZoomed() && drawn_whole) {
        x->setRange(-0.5, std::max<qsizetype>(1, m_values.cols()) - 0.5);
        y->setRange(-0.5, std::max<qsizetype>(1, m_values.rows()) - 0.5);
    } else {
        const QRectF view = viewWindow();
        const double f = m_factor;
        x->setRange((view.left() - m_drawn.first_column) / f - 0.5, (view.right() - m_drawn.first_column) / f - 0.5);
        y->setRange((view.top() - m_drawn.first_row) / f - 0.5, (view.bottom() - m_drawn.first_row) / f - 0.5);
    }
    updateLabels();
    scheduleReplot();
    emit viewChanged();
}

QPointF HeatmapPlot::positionOf(double row, double column) const
{
    const double f = m_factor;
    return QPointF(d->rect->axis(QCPAxis::atBottom)->coordToPixel((column - m_drawn.first_column) / f - 0.5),
                   d->rect->axis(QCPAxis::atLeft)->coordToPixel((row - m_drawn.first_row) / f - 0.5));
}

double HeatmapPlot::visibleDrawnColumns() const
{
    return std::max(1e-3, d->rect->axis(QCPAxis::atBottom)->range().size());
}

double HeatmapPlot::visibleDrawnRows() const
{
    return std::max(1e-3, d->rect->axis(QCPAxis::atLeft)->range().size());
}

void HeatmapPlot::updateCursor()
{
    if (m_zoomable && isZoomed())
        d->plot->setCursor(m_drag.moved ? Qt::ClosedHandCursor : Qt::OpenHandCursor);
    else
        d->plot->unsetCursor();
}

namespace {

QList<std::pair<int, QString>> ticksOf(QCPAxisTickerText& ticker, const QCPRange& range, int first, int factor)
{
    QList<std::pair<int, QString>> shown;
    for (auto tick = ticker.ticks().cbegin(); tick != ticker.ticks().cend(); ++tick)
        if (range.contains(tick.key()))
            shown.append({first + int(std::lround(tick.key())) * factor, tick.value()});
    return shown;
}

}  // namespace

QList<std::pair<int, QString>> HeatmapPlot::shownRowLabels() const
{
    return ticksOf(*d->y_ticker, d->rect->axis(QCPAxis::atLeft)->range(), m_drawn.first_row, m_factor);
}

QList<std::pair<int, QString>> HeatmapPlot::shownColumnLabels() const
{
    return ticksOf(*d->x_ticker, d->rect->axis(QCPAxis::atBottom)->range(), m_drawn.first_column, m_factor);
}

}  // namespace attn
