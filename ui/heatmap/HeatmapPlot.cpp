// HeatmapPlot: the widget and its QCustomPlot, composing one class per job: HeatmapColouring
// (values to colours), HeatmapReducer (large matrices in blocks, in the background), HeatmapLabels
// (texts and square cells), HeatmapZoom (the view's window) and HeatmapMouse (what input does).
#include "ui/heatmap/HeatmapPlot.h"

#include "ui/heatmap/HeatmapCells.h"
#include "ui/heatmap/HeatmapMouse.h"
#include "ui/heatmap/ReductionNote.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QMargins>
#include <QPicture>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace attn {

// What HeatmapPlot holds of QCustomPlot.
struct HeatmapPlot::Private {
    QCustomPlot* plot = nullptr;
    QCPAxisRect* rect = nullptr;
    QCPColorMap* map = nullptr;
    QCPColorScale* scale = nullptr;
    QCPTextElement* title = nullptr;
    QCPLayoutGrid* body = nullptr;  // the cells and the colour bar, below the title
    QCPMarginGroup* margins = nullptr;
    CellOverlayState overlay;
    std::unique_ptr<HeatmapLabels> labels;
    std::unique_ptr<HeatmapMouse> mouse;  // gone, with its event filter, before the plot is
};

HeatmapPlot::HeatmapPlot(QWidget* parent)
    : QWidget(parent),
      d(std::make_unique<Private>()),
      m_reducer(
          this, m_zoom, [this](DrawnCells drawn) { showDrawn(std::move(drawn)); },
          [this](bool wanted, bool again) { reducerIdle(wanted, again); })
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    d->plot = new QCustomPlot(this);
    layout->addWidget(d->plot);
    d->plot->setNoAntialiasingOnDrag(true);
    d->plot->setPlottingHint(QCP::phCacheLabels, true);
    d->plot->setMouseTracking(true);
    d->plot->installEventFilter(this);

    d->rect = d->plot->axisRect();
    // Fonts in pixels, not points: a picture is laid out in pixels, and point sizes would follow
    // each paint device's resolution.
    QFont title_font = font();
    title_font.setPixelSize(15);
    title_font.setWeight(QFont::DemiBold);
    d->title = new QCPTextElement(d->plot, QString(), title_font);
    // The padding that squares the cells goes around the body only, so that the title keeps the
    // plot's whole width.
    d->body = new QCPLayoutGrid;
    d->body->setAutoMargins(QCP::msNone);
    d->plot->plotLayout()->take(d->rect);
    d->plot->plotLayout()->addElement(0, 0, d->body);
    d->body->addElement(0, 0, d->rect);
    d->plot->plotLayout()->insertRow(0);
    d->plot->plotLayout()->addElement(0, 0, d->title);
    d->title->setVisible(false);

    QCPAxis* x = d->rect->axis(QCPAxis::atBottom);
    QCPAxis* y = d->rect->axis(QCPAxis::atLeft);
    y->setRangeReversed(true);  // row 0 (the first query) on top
    for (QCPAxis* axis : {x, y}) {
        axis->grid()->setVisible(false);
        axis->setSubTicks(false);
        axis->setTickLength(0, 3);
        axis->setBasePen(QPen(QColor(0x9e, 0x9e, 0x9e)));
        axis->setTickPen(QPen(QColor(0x9e, 0x9e, 0x9e)));
        axis->setTickLabelColor(QColor(0x30, 0x30, 0x30));
    }

    d->map = new QCPColorMap(x, y);
    d->map->setInterpolate(false);
    d->map->setTightBoundary(false);
    applyColorMap(d->map, m_colouring.map());

    d->scale = new QCPColorScale(d->plot);
    d->scale->setType(QCPAxis::atRight);
    d->scale->setBarWidth(14);
    d->scale->axis()->setTickLabelColor(QColor(0x30, 0x30, 0x30));
    QFont scale_font = font();
    scale_font.setPixelSize(12);
    d->scale->axis()->setTickLabelFont(scale_font);
    d->scale->axis()->setLabelFont(scale_font);
    d->map->setColorScale(d->scale);  // the map takes the scale's gradient and range from now on
    m_colouring.attach(d->map, d->scale);
    applyColorMap(d->map, m_colouring.map());
    d->margins = new QCPMarginGroup(d->plot);
    d->rect->setMarginGroup(QCP::msTop | QCP::msBottom, d->margins);
    d->scale->setMarginGroup(QCP::msTop | QCP::msBottom, d->margins);
    d->scale->setVisible(false);
    d->labels = std::make_unique<HeatmapLabels>(d->plot, d->rect, d->title, d->scale);

    createCellOverlay(d->plot, this, d->rect, d->map, &d->overlay);
    d->mouse = std::make_unique<HeatmapMouse>(this, d->plot, d->rect);
    connect(d->plot, &QCustomPlot::afterReplot, this, &HeatmapPlot::replotted);
    connect(d->plot, &QCustomPlot::afterLayout, this, &HeatmapPlot::makeCellsSquare);
    setMinimumSize(60, 60);
}

HeatmapPlot::~HeatmapPlot() = default;

void HeatmapPlot::setColorBarVisible(bool visible)
{
    if (visible == d->scale->visible())
        return;
    d->scale->setVisible(visible);
    if (visible)
        d->body->addElement(0, 1, d->scale);
    else
        d->body->take(d->scale);
    d->body->simplify();
    scheduleReplot();
}

void HeatmapPlot::setColorBarLabel(const QString& label)
{
    d->labels->setBarLabel(label, textSize());
    scheduleReplot();
}

void HeatmapPlot::setTitle(const QString& title)
{
    d->labels->setTitle(title, textSize());
    scheduleReplot();
}

QString HeatmapPlot::title() const
{
    return d->title->text();
}
QString HeatmapPlot::colorBarLabel() const
{
    return d->scale->axis()->label();
}

void HeatmapPlot::setAxisTitles(const QString& x_title, const QString& y_title)
{
    d->rect->axis(QCPAxis::atBottom)->setLabel(x_title);
    d->rect->axis(QCPAxis::atLeft)->setLabel(y_title);
    scheduleReplot();
}

void HeatmapPlot::setCellText(CellText mode)
{
    m_cell_text = mode;
    updateLabels();
    scheduleReplot();
}

void HeatmapPlot::setCompact(bool compact)
{
    m_compact = compact;
    d->overlay.compact = compact;
    d->labels->setCompact(compact, font());
    updateLabels();
    scheduleReplot();
}

void HeatmapPlot::setHighlighted(bool highlighted)
{
    d->overlay.highlighted = highlighted;
    scheduleReplot();
}

void HeatmapPlot::setSelection(int row, int column)
{
    if (row < 0)
        column = -1;
    if (row == m_selected_row && column == m_selected_column)
        return;
    m_selected_row = std::max(-1, row);
    m_selected_column = std::max(-1, column);
    outlineSelection();
    scheduleReplot();
}

QString HeatmapPlot::rowLabel(int row) const
{
    return d->labels->rowLabel(row);
}

QString HeatmapPlot::columnLabel(int column) const
{
    return d->labels->columnLabel(column);
}

double HeatmapPlot::plottedCell(int key_index, int value_index) const
{
    return d->map->data()->cell(key_index, value_index);
}

int HeatmapPlot::plottedKeySize() const
{
    return d->map->data()->keySize();
}
int HeatmapPlot::plottedValueSize() const
{
    return d->map->data()->valueSize();
}
bool HeatmapPlot::cellTextVisible() const
{
    return d->overlay.show_text;
}

bool HeatmapPlot::cellAt(const QPoint& position, int* row, int* column) const
{
    if (m_values.size() == 0 || !d->rect->rect().contains(position))
        return false;
    const int c = int(std::lround(d->rect->axis(QCPAxis::atBottom)->pixelToCoord(position.x())));
    const int r = int(std::lround(d->rect->axis(QCPAxis::atLeft)->pixelToCoord(position.y())));
    if (r < 0 || c < 0 || r >= m_values.rows() || c >= m_values.cols())
        return false;
    *row = std::min(m_drawn.first_row + r * m_blocks.rows, m_full_rows - 1);
    *column = std::min(m_drawn.first_column + c * m_blocks.columns, m_full_columns - 1);
    return true;
}

void HeatmapPlot::render(QPainter* painter, const QRectF& target)
{
    const QSize size = target.size().toSize();
    if (size.isEmpty())
        return;
    // A picture shows the view as it will be once reduced, not the cells still being replaced.
    if (m_zoom.isZoomable() && reductionPending())
        reduceNow();
    const QSize on_screen = d->plot->size();
    d->plot->resize(size);  // label density and cell text follow the target size
    m_render_size = size;
    updateLabels();
    // A picture draws the cells itself (HeatmapCells: rectangles, or an image of whole pixels
    // per cell): QCPColorMap would embed an image smaller than drawn, which viewers smooth and
    // Qt's PDF engine stores as JPEG.
    d->map->setVisible(false);
    d->overlay.draw_cells = true;
    // A picture shows the matrix, not the window's state: no frame, no selected row or cell.
    const bool highlighted = std::exchange(d->overlay.highlighted, false);
    d->overlay.selected_row = -1;
    d->overlay.selected_column = -1;
    QPicture picture;
    {
        QCPPainter recorder(&picture);
        recorder.setRenderHint(QPainter::LosslessImageRendering);
        d->plot->toPainter(&recorder, size.width(), size.height());
    }
    d->overlay.draw_cells = false;
    d->overlay.highlighted = highlighted;
    outlineSelection();
    d->map->setVisible(m_values.size() > 0);
    // QPicture records at its own resolution and playback scales to the device's; undo that so
    // the plot fills `target` on every device (the exporters all use 96 dpi, where it is 1).
    const double device_dpi = painter->device() ? painter->device()->logicalDpiX() : picture.logicalDpiX();
    const double k = device_dpi / picture.logicalDpiX();
    painter->save();
    painter->translate(target.topLeft());
    if (std::abs(k - 1.0) > 1e-9)
        painter->scale(1.0 / k, 1.0 / k);
    painter->drawPicture(QPointF(0, 0), picture);
    painter->restore();
    d->plot->resize(on_screen);
    m_render_size = QSize();
    updateLabels();
    scheduleReplot();
}

QImage HeatmapPlot::toImage(const QSize& size, double scale)
{
    QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    render(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
    return image;
}

void HeatmapPlot::replotNow()
{
    d->plot->replot(QCustomPlot::rpImmediateRefresh);
}

bool HeatmapPlot::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == d->plot && event->type() == QEvent::Resize)
        updateLabels();
    return QWidget::eventFilter(watched, event);
}

void HeatmapPlot::scheduleReplot()
{
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

// The drawn cells and the matrix they come from.

DrawnGrid HeatmapPlot::drawnGrid() const
{
    return {int(m_values.rows()), int(m_values.cols()), m_drawn, m_blocks, m_full_rows == m_full_columns};
}

ReductionRecipe HeatmapPlot::recipe() const
{
    return {m_reduction, m_colouring.topMass(), m_colouring.mapping() == ColorMapping::PerRow};
}

bool HeatmapPlot::isOnScreen() const
{
    return isVisible() && !testAttribute(Qt::WA_DontShowOnScreen);
}

void HeatmapPlot::setMatrix(const Matrix& values, const QStringList& row_labels, const QStringList& column_labels,
                            const MaskMatrix& mask, std::shared_ptr<const void> keep_alive)
{
    m_zoom.setShape(int(values.rows()), int(values.cols()));
    std::optional<DrawnCells> drawn = m_reducer.setMatrix(values, row_labels, column_labels, mask,
                                                          std::move(keep_alive), isOnScreen(), isZoomable(), recipe());
    if (drawn)
        showDrawn(std::move(*drawn));
}

void HeatmapPlot::setReducedMatrix(ReducedMatrix drawn, int full_rows, int full_columns, const QStringList& row_labels,
                                   const QStringList& column_labels)
{
    // Only the picture, without the matrix: a zoomed window of it is the picture magnified.
    m_zoom.setShape(full_rows, full_columns);
    showDrawn(m_reducer.setReducedMatrix(std::move(drawn), row_labels, column_labels));
}

// After the view changed: reduce the window it needs unless the drawn cells already hold it.
void HeatmapPlot::requestReduction(bool again)
{
    if (m_reducer.deferWhileRunning(again))  // one view reduction at a time: the newest view once that ends
        return;
    BlockShape blocks;
    const CellWindow wanted = m_reducer.wantedWindow(&blocks);
    const bool same_matrix = m_full_rows == m_zoom.rows() && m_full_columns == m_zoom.columns();
    const bool covered = same_matrix && blocks == m_blocks && m_drawn.first_row <= wanted.first_row &&
                         m_drawn.first_column <= wanted.first_column &&
                         m_drawn.first_row + m_drawn.rows >= wanted.first_row + wanted.rows &&
                         m_drawn.first_column + m_drawn.columns >= wanted.first_column + wanted.columns;
    if ((covered && !again) || !m_reducer.hasSource())
        return;  // without the matrix the reduced picture is only magnified
    if (isOnScreen())
        m_reducer.startView(recipe());
    else
        reduceNow();
}

void HeatmapPlot::reduceNow()
{
    if (m_reducer.hasSource())
        showDrawn(m_reducer.reduceViewNow(recipe()));
}

void HeatmapPlot::reducerIdle(bool wanted, bool again)
{
    if (wanted)
        requestReduction(again);
    if (!m_reducer.isRunning() && !m_zoom.isZoomable())  // only a zoomable plot keeps the matrix
        m_reducer.dropSource();
}

void HeatmapPlot::showDrawn(DrawnCells drawn)
{
    const bool was_reduced = m_blocks.reduces();
    const int old_rows = int(m_values.rows());
    const int old_columns = int(m_values.cols());
    const bool moved = drawn.window != m_drawn;
    m_full_rows = drawn.full_rows;
    m_full_columns = drawn.full_columns;
    m_blocks = drawn.cells.blocks;
    m_drawn = drawn.window;
    m_values = std::move(drawn.cells.values);
    m_mask = std::move(drawn.cells.mask);
    m_row_tops = drawn.row_tops.size() == size_t(m_values.rows()) ? std::move(drawn.row_tops) : std::vector<float>();
    outlineSelection();
    const bool reshaped =
        m_values.rows() != old_rows || m_values.cols() != old_columns || was_reduced != m_blocks.reduces() || moved;
    d->labels->setLabels(drawn.row_labels, drawn.column_labels, reshaped);
    // A matrix drawn whole is dimmed here; a reduced one, or a window of it, by its reduction
    // (whose top mass is that of whole rows).
    const bool whole = !m_blocks.reduces() && m_drawn == CellWindow{0, 0, m_full_rows, m_full_columns};
    m_colouring.dimFor(m_values, whole, std::move(drawn.cells.dimmed));
    m_colouring.show(m_values, m_mask, m_row_tops);
    applyView();
    emit matrixShown();
}

// The drawn cell that holds the selected row and cell.
void HeatmapPlot::outlineSelection()
{
    d->overlay.selected_row =
        m_selected_row < m_drawn.first_row ? -1 : (m_selected_row - m_drawn.first_row) / m_blocks.rows;
    d->overlay.selected_column =
        m_selected_column < m_drawn.first_column ? -1 : (m_selected_column - m_drawn.first_column) / m_blocks.columns;
}

QString HeatmapPlot::reductionNote() const
{
    return attn::reductionNote(m_full_rows, m_full_columns, m_reduction);
}

// Texts and labels: HeatmapLabels.

QSize HeatmapPlot::textSize() const
{
    return m_render_size.isValid() ? m_render_size : size();
}

void HeatmapPlot::updateLabels()
{
    const bool big_enough =
        d->labels->layOut(textSize(), drawnGrid(), m_square_cells, m_compact && !m_render_size.isValid());
    d->overlay.show_text = m_cell_text == CellText::Always || (m_cell_text == CellText::Auto && big_enough);
    d->overlay.show_legend = !m_compact;
}

void HeatmapPlot::makeCellsSquare()
{
    d->labels->fitLayout(textSize(), drawnGrid(), m_square_cells, m_compact && !m_render_size.isValid());
}

void HeatmapPlot::setSquareCells(bool square)
{
    m_square_cells = square;
    scheduleReplot();
}

QList<std::pair<int, QString>> HeatmapPlot::shownRowLabels() const
{
    return d->labels->shownRowLabels(drawnGrid());
}

QRect HeatmapPlot::cellsRect() const
{
    return d->rect->rect();
}

QList<std::pair<int, QString>> HeatmapPlot::shownColumnLabels() const
{
    return d->labels->shownColumnLabels(drawnGrid());
}

// Zoom and pan: HeatmapZoom holds the view, the axes show it over the drawn cells, and the
// reducer reduces the window again when the drawn cells are too coarse for it or do not cover it.

void HeatmapPlot::setZoomable(bool zoomable)
{
    m_zoom.setZoomable(zoomable);
    d->plot->setFocusPolicy(zoomable ? Qt::ClickFocus : Qt::NoFocus);  // for the arrow keys
    if (!zoomable)
        resetZoom();
    d->mouse->updateCursor();
}

void HeatmapPlot::setViewWindow(const QRectF& window)
{
    if (!m_zoom.setViewWindow(window))
        return;
    applyView();
    requestReduction();
    d->mouse->updateCursor();
}

void HeatmapPlot::panBy(double columns, double rows)
{
    if (isZoomed())
        setViewWindow(viewWindow().translated(columns, rows));
}

void HeatmapPlot::zoomBy(double factor, QPointF about)
{
    const double columns = m_zoom.columns();
    const double rows = m_zoom.rows();
    if (columns <= 0 || rows <= 0 || !(factor > 0))
        return;
    QPointF anchor;  // the matrix point under `about`
    const bool anchored =
        about.x() >= 0 && about.y() >= 0 && d->rect->rect().contains(about.toPoint()) && m_values.size() > 0;
    if (anchored) {
        const double u = d->rect->axis(QCPAxis::atBottom)->pixelToCoord(about.x());
        const double v = d->rect->axis(QCPAxis::atLeft)->pixelToCoord(about.y());
        anchor = QPointF(std::clamp(m_drawn.first_column + (u + 0.5) * m_blocks.columns, 0.0, columns),
                         std::clamp(m_drawn.first_row + (v + 0.5) * m_blocks.rows, 0.0, rows));
    }
    setViewWindow(m_zoom.zoomedWindow(factor, anchored ? &anchor : nullptr));
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
        const double f = m_blocks.rows;
        const double g = m_blocks.columns;
        x->setRange((view.left() - m_drawn.first_column) / g - 0.5, (view.right() - m_drawn.first_column) / g - 0.5);
        y->setRange((view.top() - m_drawn.first_row) / f - 0.5, (view.bottom() - m_drawn.first_row) / f - 0.5);
    }
    updateLabels();
    scheduleReplot();
    emit viewChanged();
}

QPointF HeatmapPlot::positionOf(double row, double column) const
{
    const double f = m_blocks.rows;
    const double g = m_blocks.columns;
    return QPointF(d->rect->axis(QCPAxis::atBottom)->coordToPixel((column - m_drawn.first_column) / g - 0.5),
                   d->rect->axis(QCPAxis::atLeft)->coordToPixel((row - m_drawn.first_row) / f - 0.5));
}

// Colours: HeatmapColouring.

void HeatmapPlot::setColorMapping(ColorMapping mapping)
{
    if (mapping == m_colouring.mapping())
        return;
    m_colouring.setMapping(mapping);
    m_colouring.show(m_values, m_mask, m_row_tops);
    scheduleReplot();
    // Each row to its max in a window narrower than the matrix needs its whole rows' maxima.
    if (mapping == ColorMapping::PerRow && m_drawn.columns < m_full_columns)
        requestReduction(true);
}

void HeatmapPlot::setDimmed(const MaskMatrix& dimmed)
{
    m_colouring.setDimmed(m_values, dimmed);
    scheduleReplot();
}

void HeatmapPlot::setTopMass(double fraction)
{
    if (!m_colouring.setTopMass(fraction))
        return;
    if (m_blocks.reduces() || m_drawn != CellWindow{0, 0, m_full_rows, m_full_columns})
        return;  // reduced (or a window of a reduced matrix): dimmed by block with the next setMatrix
    m_colouring.dimWhole(m_values);
    scheduleReplot();
}

void HeatmapPlot::setColorMap(ColorMaps::Map map)
{
    m_colouring.setMap(map);
    m_colouring.applyRange(m_values, m_mask);
    scheduleReplot();
}

void HeatmapPlot::setValueRange(double low, double high)
{
    m_colouring.setValueRange(low, high);
    if (m_colouring.mapping() == ColorMapping::Log) {  // the values are clamped to the new low end
        m_colouring.update(m_values, m_mask, m_row_tops);
        m_colouring.fill(m_values, m_mask);
    }
    m_colouring.applyRange(m_values, m_mask);
    scheduleReplot();
}

void HeatmapPlot::setAutoValueRange()
{
    m_colouring.setAutoValueRange();
    m_colouring.applyRange(m_values, m_mask);
    scheduleReplot();
}

}  // namespace attn
