#include "ui/heatmap/HeatmapPlot.h"

#include "ui/heatmap/HeatmapCells.h"
#include "ui/heatmap/HeatmapPlotPrivate.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPicture>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

HeatmapPlot::HeatmapPlot(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>())
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
    d->plot->plotLayout()->insertRow(0);
    d->plot->plotLayout()->addElement(0, 0, d->title);
    d->title->setVisible(false);

    QCPAxis* x = d->rect->axis(QCPAxis::atBottom);
    QCPAxis* y = d->rect->axis(QCPAxis::atLeft);
    x->setTicker(d->x_ticker);
    y->setTicker(d->y_ticker);
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
    applyColorMap(d->map, m_map);

    d->scale = new QCPColorScale(d->plot);
    d->scale->setType(QCPAxis::atRight);
    d->scale->setBarWidth(14);
    d->scale->axis()->setTickLabelColor(QColor(0x30, 0x30, 0x30));
    QFont scale_font = font();
    scale_font.setPixelSize(12);
    d->scale->axis()->setTickLabelFont(scale_font);
    d->scale->axis()->setLabelFont(scale_font);
    d->map->setColorScale(d->scale);  // the map takes the scale's gradient and range from now on
    applyColorMap(d->map, m_map);
    d->margins = new QCPMarginGroup(d->plot);
    d->rect->setMarginGroup(QCP::msTop | QCP::msBottom, d->margins);
    d->scale->setMarginGroup(QCP::msTop | QCP::msBottom, d->margins);
    d->scale->setVisible(false);

    createCellOverlay(d->plot, this, d->rect, d->map, &d->overlay);
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
        d->plot->plotLayout()->addElement(1, 1, d->scale);
    else
        d->plot->plotLayout()->take(d->scale);
    d->plot->plotLayout()->simplify();
    scheduleReplot();
}

void HeatmapPlot::setColorBarLabel(const QString& label)
{
    m_bar_label = label;
    fitTexts(m_render_size.isValid() ? m_render_size : size());
    scheduleReplot();
}

void HeatmapPlot::setTitle(const QString& title)
{
    m_title = title;
    d->title->setVisible(!title.isEmpty());
    fitTexts(m_render_size.isValid() ? m_render_size : size());
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
    QFont tick_font = font();
    tick_font.setPixelSize(compact ? 10 : 13);
    QFont title_font = font();
    title_font.setPixelSize(compact ? 13 : 16);
    title_font.setWeight(QFont::DemiBold);
    d->title->setFont(title_font);
    m_longest_label = -1;
    m_label_widths.clear();
    m_ticks = {};
    for (QCPAxis* axis : {d->rect->axis(QCPAxis::atBottom), d->rect->axis(QCPAxis::atLeft)}) {
        axis->setTickLabelFont(tick_font);
        axis->setLabelFont(tick_font);
        axis->setTickLabelPadding(compact ? 2 : 4);
    }
    d->rect->setAutoMargins(QCP::msAll);
    d->base_margins = compact ? QMargins(2, 2, 2, 2) : QMargins(6, 6, 6, 6);
    d->plot->plotLayout()->setMargins(d->base_margins + d->square_margins);
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

int HeatmapPlot::selectedRow() const
{
    return m_selected_row;
}
int HeatmapPlot::selectedColumn() const
{
    return m_selected_column;
}

bool HeatmapPlot::isMasked(int row, int column) const
{
    return m_mask.size() > 0 && m_mask(row, column);
}

QString HeatmapPlot::rowLabel(int row) const
{
    return row < m_row_labels.size() ? m_row_labels[row] : QString::number(row);
}

QString HeatmapPlot::columnLabel(int column) const
{
    return column < m_column_labels.size() ? m_column_labels[column] : QString::number(column);
}

double HeatmapPlot::valueLow() const
{
    return m_low;
}
double HeatmapPlot::valueHigh() const
{
    return m_high;
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
    *row = std::min(m_drawn.first_row + r * m_factor, m_full_rows - 1);
    *column = std::min(m_drawn.first_column + c * m_factor, m_full_columns - 1);
    return true;
}

void HeatmapPlot::render(QPainter* painter, const QRectF& target)
{
    const QSize size = target.size().toSize();
    if (size.isEmpty())
        return;
    // A picture shows the view as it will be once reduced, not the cells still being replaced.
    if (m_zoomable && reductionPending())
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
    QPicture picture;
    {
        QCPPainter recorder(&picture);
        recorder.setRenderHint(QPainter::LosslessImageRendering);
        d->plot->toPainter(&recorder, size.width(), size.height());
    }
    d->overlay.draw_cells = false;
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
    if (watched == d->plot) {
        switch (event->type()) {
            case QEvent::MouseMove: {
                const QPoint position = static_cast<QMouseEvent*>(event)->position().toPoint();
                int row = 0, column = 0;
                if (m_drag.pressed && m_zoomable && isZoomed()) {
                    // Dragging pans: the matrix point under the mouse follows it.
                    if (!m_drag.moved &&
                        (position - m_drag.start).manhattanLength() >= QApplication::startDragDistance()) {
                        m_drag.moved = true;
                        updateCursor();
                    }
                    if (m_drag.moved) {
                        QCPAxis* x = d->rect->axis(QCPAxis::atBottom);
                        QCPAxis* y = d->rect->axis(QCPAxis::atLeft);
                        const double columns =
                            (x->pixelToCoord(m_drag.start.x()) - x->pixelToCoord(position.x())) * m_factor;
                        const double rows =
                            (y->pixelToCoord(m_drag.start.y()) - y->pixelToCoord(position.y())) * m_factor;
                        m_drag.start = position;
                        panBy(columns, rows);
                    }
                }
                if (cellAt(position, &row, &column)) {
                    const int drawn_row = (row - m_drawn.first_row) / m_factor;
                    const int drawn_column = (column - m_drawn.first_column) / m_factor;
                    emit cellHovered(row, column,
                                     isMasked(drawn_row, drawn_column) ? std::numeric_limits<double>::quiet_NaN()
                                                                       : double(m_values(drawn_row, drawn_column)));
                } else
                    emit hoverLeft();
                break;
            }
            case QEvent::Leave:
                emit hoverLeft();
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
                if (mouse->button() == Qt::LeftButton && !dragged && cellAt(mouse->position().toPoint(), &row, &column))
                    emit cellClicked(row, column);
                break;
            }
            case QEvent::MouseButtonDblClick:
                if (m_zoomable && static_cast<QMouseEvent*>(event)->button() == Qt::LeftButton && isZoomed()) {
                    resetZoom();
                    return true;
                }
                break;
            case QEvent::Wheel:
                if (m_zoomable) {
                    // About the cursor; 1.25 times per notch (120 eighths of a degree), smoothly
                    // for touchpads' smaller steps.
                    auto* wheel = static_cast<QWheelEvent*>(event);
                    const int delta = wheel->angleDelta().y() != 0 ? wheel->angleDelta().y() : wheel->angleDelta().x();
                    if (delta != 0)
                        zoomBy(std::pow(1.25, delta / 120.0), wheel->position());
                    return true;
                }
                break;
            case QEvent::KeyPress:
                if (m_zoomable && isZoomed()) {
                    // Arrows pan by an eighth of the view (with Shift, by one cell).
                    auto* key = static_cast<QKeyEvent*>(event);
                    const QRectF view = viewWindow();
                    const bool fine = key->modifiers() & Qt::ShiftModifier;
                    const double across = fine ? 1.0 : std::max(1.0, std::round(view.width() / 8));
                    const double down = fine ? 1.0 : std::max(1.0, std::round(view.height() / 8));
                    switch (key->key()) {
                        case Qt::Key_Left:
                            panBy(-across, 0);
                            return true;
                        case Qt::Key_Right:
                            panBy(across, 0);
                            return true;
                        case Qt::Key_Up:
                            panBy(0, -down);
                            return true;
                        case Qt::Key_Down:
                            panBy(0, down);
                            return true;
                        default:
                            break;
                    }
                }
                break;
            case QEvent::Resize:
                updateLabels();
                break;
            default:
                break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void HeatmapPlot::scheduleReplot()
{
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace attn
