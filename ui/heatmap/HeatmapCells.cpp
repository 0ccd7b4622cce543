#include "ui/heatmap/HeatmapCells.h"

#include "ui/heatmap/Hatch.h"
#include "ui/heatmap/HeatmapPlot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

namespace attn {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Colour-map data written straight into its cell array (QCustomPlot's setCell is an out-of-line
// call with bounds checks per cell, too slow for a large head on every keystroke).
class DirectColorMapData : public QCPColorMapData {
public:
    using QCPColorMapData::QCPColorMapData;
    double* cells() { return mData; }  // value-major: cells()[value * keySize() + key]
    void finish(double low, double high)
    {
        mDataBounds = QCPRange(low, high);
        mDataModified = true;
        mIsEmpty = false;
    }
};

// The single place where a matrix becomes colour-map data. QCustomPlot indexes cells as
// (key, value) = (x, y) = (column, row), so cell(column, row) holds values(row, column); with the
// value axis reversed row 0 is drawn on top. Cells are centred on the integers 0..n-1. A
// dimension of 1 is stored as two identical cells at -0.25 and +0.25 (QCustomPlot draws a
// single cell with zero width), which still covers -0.5..0.5 and keeps cell(0, ...) exact.
// Masked cells hold NaN, drawn in the gradient's NaN colour and hatched by the overlay.
int keySizeFor(const Matrix& values)
{
    return values.cols() == 1 ? 2 : int(values.cols());
}
int valueSizeFor(const Matrix& values)
{
    return values.rows() == 1 ? 2 : int(values.rows());
}
QCPRange keyRangeFor(const Matrix& values)
{
    return values.cols() == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, double(values.cols() - 1));
}
QCPRange valueRangeFor(const Matrix& values)
{
    return values.rows() == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, double(values.rows() - 1));
}

void fillCells(DirectColorMapData* data, const Matrix& values, const MaskMatrix& mask)
{
    const int rows = int(values.rows());
    const int columns = int(values.cols());
    const int key_size = keySizeFor(values);
    const int value_size = valueSizeFor(values);
    const bool has_mask = mask.rows() == rows && mask.cols() == columns;
    double* cells = data->cells();
    if (!has_mask && key_size == columns && value_size == rows) {
        // The common case (nothing masked): one converting copy per row, the range from Eigen.
        for (int row = 0; row < rows; ++row)
            Eigen::Map<Eigen::RowVectorXd>(cells + qsizetype(row) * key_size, columns) = values.row(row).cast<double>();
        const double low = values.minCoeff();
        const double high = values.maxCoeff();
        data->finish(std::isfinite(low) ? low : 0.0, std::isfinite(high) ? high : 0.0);
        return;
    }
    double low = std::numeric_limits<double>::infinity();
    double high = -low;
    for (int value = 0; value < value_size; ++value) {
        const int row = std::min(value, rows - 1);
        double* line = cells + qsizetype(value) * key_size;
        for (int key = 0; key < key_size; ++key) {
            const int column = std::min(key, columns - 1);
            if (has_mask && mask(row, column)) {
                line[key] = kNan;
                continue;
            }
            const double z = values(row, column);
            line[key] = z;
            low = std::min(low, z);
            high = std::max(high, z);
        }
    }
    data->finish(std::isfinite(low) ? low : 0.0, std::isfinite(high) ? high : 0.0);
}

}  // namespace

QCPColorMapData* makeColorMapData(const Matrix& values, const MaskMatrix& mask)
{
    auto* data =
        new DirectColorMapData(keySizeFor(values), valueSizeFor(values), keyRangeFor(values), valueRangeFor(values));
    fillCells(data, values, mask);
    return data;
}

bool refillColorMapData(QCPColorMapData* data, const Matrix& values, const MaskMatrix& mask)
{
    auto* direct = static_cast<DirectColorMapData*>(data);  // made by makeColorMapData (the caller knows)
    // The same number of cells is not the same geometry: one token is stored as 2 x 2 cells
    // over -0.25..0.25, two tokens as 2 x 2 cells over 0..1.
    if (!direct || values.size() == 0 || direct->keySize() != keySizeFor(values) ||
        direct->valueSize() != valueSizeFor(values) || direct->keyRange() != keyRangeFor(values) ||
        direct->valueRange() != valueRangeFor(values))
        return false;
    fillCells(direct, values, mask);
    return true;
}

void applyColorMap(QCPColorMap* plottable, ColorMaps::Map map)
{
    QCPColorGradient gradient;
    gradient.clearColorStops();
    for (const auto& [position, color] : ColorMaps::stops(map))
        gradient.setColorStopAt(position, color);
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setLevelCount(256);
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(Hatch::fill());
    plottable->setGradient(gradient);
}

namespace {

// How strongly dimmed cells are covered with white, and the colour of such a cell under it.
constexpr int kDimAlpha = 190;
QColor fadedTowardsWhite(const QColor& colour)
{
    const double keep = 1.0 - kDimAlpha / 255.0;
    auto mix = [keep](int channel) { return int(std::lround(channel * keep + 255 * (1.0 - keep))); };
    return QColor(mix(colour.red()), mix(colour.green()), mix(colour.blue()));
}

QString formatValue(double value)
{
    if (std::isnan(value))
        return QStringLiteral("masked");
    if (std::abs(value) < 10.0)
        return QString::number(value, 'f', 2);
    return QString::number(value, 'g', 3);
}

// The drawn cells [from, to) of `count` that an axis shows at least partly (all of them unless
// the plot is zoomed): cell c spans c - 0.5 .. c + 0.5.
struct Span {
    int from = 0;
    int to = 0;
};
Span visibleSpan(const QCPAxis* axis, int count)
{
    const QCPRange range = axis->range();
    const int from = std::clamp(int(std::floor(range.lower - 0.5 + 1e-9)) + 1, 0, count);
    return {from, std::clamp(int(std::ceil(range.upper + 0.5 - 1e-9)), from, count)};
}

// Draws what a colour map cannot: hatching over masked cells, the numbers inside the cells and
// the "masked" legend swatch. One layerable above the colour map, so it is part of every
// rendering (screen, image, SVG, PDF).
class CellOverlay : public QCPLayerable {
public:
    CellOverlay(QCustomPlot* plot, const HeatmapPlot* owner, QCPAxisRect* rect, QCPColorMap* map,
                const CellOverlayState* state)
        : QCPLayerable(plot, QStringLiteral("main")), m_owner(owner), m_rect(rect), m_map(map), m_state(state)
    {
    }

protected:
    void applyDefaultAntialiasingHint(QCPPainter* painter) const override { painter->setAntialiasing(false); }
    QRect clipRect() const override { return mParentPlot->viewport(); }

    void draw(QCPPainter* painter) override
    {
        const int rows = m_owner->rowCount();
        const int columns = m_owner->columnCount();
        if (rows == 0 || columns == 0)
            return;
        QCPAxis* x = m_rect->axis(QCPAxis::atBottom);
        QCPAxis* y = m_rect->axis(QCPAxis::atLeft);
        auto cellRect = [&](int row, int column_begin, int column_end) {
            const QPointF a(x->coordToPixel(column_begin - 0.5), y->coordToPixel(row - 0.5));
            const QPointF b(x->coordToPixel(column_end - 0.5), y->coordToPixel(row + 0.5));
            return QRectF(a, b).normalized();
        };
        // Only the cells in view (a zoomed plot holds many more).
        const Span shown_rows = visibleSpan(y, rows);
        const Span shown_columns = visibleSpan(x, columns);
        painter->save();
        painter->setClipRect(m_rect->rect());
        if (m_state->draw_cells)
            drawCells(painter, x, y, shown_rows, shown_columns);
        // Masked cells: one rectangle per run of masked cells in a row, filled, then hatched
        // (lines only while cells are large enough for them to read as a pattern).
        QList<QRectF> masked;
        const MaskMatrix& mask = m_owner->mask();  // (rows, columns), or empty: nothing masked
        for (int row = shown_rows.from; row < shown_rows.to && mask.size() > 0; ++row) {
            const bool* line = mask.row(row).data();
            const int end = shown_columns.to;
            for (int column = shown_columns.from; column < end;) {
                const int begin = int(std::find(line + column, line + end, true) - line);
                column = int(std::find(line + begin, line + end, false) - line);
                if (begin < column)
                    masked.append(cellRect(row, begin, column));
            }
        }
        const double cell_height = std::abs(y->coordToPixel(1) - y->coordToPixel(0));
        Hatch::draw(painter, masked, m_state->compact ? 4.0 : 6.0, cell_height >= 3.0);
        // Dimmed cells (outside a row's strongest keys): white over them, one path per picture made
        // of one rectangle per run of dimmed cells in a row. (A rectangle per cell held up to a
        // million per plot with the top 1 % of 8,192 tokens, and the window grew to 2.9 GB.)
        if (m_owner->hasDimmed()) {
            QPainterPath dimmed;
            const auto dims = [this](int row, int column) {
                return m_owner->isDimmed(row, column) && !m_owner->isMasked(row, column);
            };
            for (int row = shown_rows.from; row < shown_rows.to; ++row)
                for (int column = shown_columns.from; column < shown_columns.to;) {
                    if (!dims(row, column)) {
                        ++column;
                        continue;
                    }
                    const int begin = column;
                    while (column < shown_columns.to && dims(row, column))
                        ++column;
                    dimmed.addRect(cellRect(row, begin, column));
                }
            painter->fillPath(dimmed, QColor(255, 255, 255, kDimAlpha));
        }
        const double cell_width = std::abs(x->coordToPixel(1) - x->coordToPixel(0));
        QFont text_font = painter->font();
        text_font.setPixelSize(int(std::clamp(cell_height * 0.32, 8.0, 15.0)));
        // Numbers only where the widest of them ("-0.00") fits the cell as drawn: the estimate
        // behind show_text does not know the final layout.
        const QFontMetricsF text_metrics(text_font);
        const bool text_fits = text_metrics.horizontalAdvance(QStringLiteral("-0.00")) + 2 <= cell_width &&
                               text_metrics.height() <= cell_height;
        if (m_state->show_text && text_fits) {
            painter->setFont(text_font);
            const Matrix& values = m_owner->values();
            for (int row = shown_rows.from; row < shown_rows.to; ++row) {
                for (int column = shown_columns.from; column < shown_columns.to; ++column) {
                    if (m_owner->isMasked(row, column))
                        continue;
                    const double value = values(row, column);
                    QColor background = ColorMaps::colorAt(m_owner->colorMap(), m_owner->colourPosition(row, column));
                    if (m_owner->isDimmed(row, column))
                        background = fadedTowardsWhite(background);
                    const double luminance =
                        0.299 * background.red() + 0.587 * background.green() + 0.114 * background.blue();
                    painter->setPen(luminance > 150 ? QColor(20, 20, 20) : QColor(250, 250, 250));
                    painter->drawText(cellRect(row, column, column + 1), Qt::AlignCenter, formatValue(value));
                }
            }
        }
        painter->restore();
        if (m_state->highlighted) {
            painter->setPen(QPen(QColor(0x1e, 0x88, 0xe5), 3));
            painter->setBrush(Qt::NoBrush);
            painter->drawRect(QRectF(m_rect->rect()).adjusted(-2, -2, 2, 2));
        }
        if (m_state->selected_row >= shown_rows.from && m_state->selected_row < shown_rows.to &&
            shown_columns.from < shown_columns.to) {
            // The selection: the row outlined, the cell more strongly; black under white so that
            // it reads on every colour of every map.
            painter->setBrush(Qt::NoBrush);
            const int row = m_state->selected_row;
            const int column = m_state->selected_column;
            auto outline = [&](const QRectF& rect, double width) {
                painter->setPen(QPen(QColor(20, 20, 20), width + 2.0, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
                painter->drawRect(rect);
                painter->setPen(QPen(QColor(255, 255, 255), width, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
                painter->drawRect(rect);
            };
            // Within the plot: a zoomed view shows part of the row.
            painter->save();
            painter->setClipRect(QRectF(m_rect->rect()).adjusted(-3, -3, 3, 3));
            outline(cellRect(row, shown_columns.from, shown_columns.to), 1.0);
            if (column >= shown_columns.from && column < shown_columns.to)
                outline(cellRect(row, column, column + 1), 2.0);
            painter->restore();
        }
        if (m_state->show_legend && !masked.isEmpty()) {
            // Swatch + text at the top right, above the matrix.
            QFont font = painter->font();
            font.setPixelSize(12);
            painter->setFont(font);
            // Within the plot: the short text when the long one would run off its left edge.
            QString text = QStringLiteral("masked (not attended)");
            if (QFontMetrics(font).horizontalAdvance(text) + 24 > m_rect->rect().right())
                text = QStringLiteral("masked");
            const int text_width = QFontMetrics(font).horizontalAdvance(text);
            const QRectF swatch(std::max(2, m_rect->rect().right() - text_width - 22), m_rect->rect().top() - 20, 14,
                                14);
            Hatch::draw(painter, {swatch}, 4.0);
            painter->setPen(QColor(60, 60, 60));
            painter->drawText(QRectF(swatch.right() + 6, swatch.top() - 2, text_width + 4, 18),
                              Qt::AlignLeft | Qt::AlignVCenter, text);
        }
    }

private:
    // The cell colours, exactly as the colour map's gradient gives them (so equal neighbours
    // merge). Up to kVectorCellLimit cells: one filled path per colour made of runs of equal
    // cells, over a fill of the whole matrix so that viewers that antialias shared edges show
    // no white seams. Beyond: one image with a whole number of pixels per cell, drawn without
    // smoothing and stored losslessly (PNG in SVG, Flate in PDF).
    void drawCells(QCPPainter* painter, QCPAxis* x, QCPAxis* y, Span shown_rows, Span shown_columns)
    {
        // The cells in view only, indexed from the first of them.
        const Matrix& all_values = m_owner->colourValues();  // (rows, columns) drawn
        const auto values = all_values.block(shown_rows.from, shown_columns.from, shown_rows.to - shown_rows.from,
                                             shown_columns.to - shown_columns.from);
        const int row0 = shown_rows.from;
        const int column0 = shown_columns.from;
        const int rows = int(values.rows());
        const int columns = int(values.cols());
        if (rows == 0 || columns == 0)
            return;
        QCPColorGradient gradient = m_map->gradient();
        const QCPRange range(m_owner->colourLow(), m_owner->colourHigh());
        const bool log = m_owner->colorMapping() == HeatmapPlot::ColorMapping::Log;
        const QRectF matrix =
            QRectF(QPointF(x->coordToPixel(column0 - 0.5), y->coordToPixel(row0 - 0.5)),
                   QPointF(x->coordToPixel(column0 + columns - 0.5), y->coordToPixel(row0 + rows - 0.5)))
                .normalized();
        painter->save();
        painter->setAntialiasing(false);
        painter->setPen(Qt::NoPen);
        if (qsizetype(rows) * columns <= kVectorCellLimit) {
            std::vector<double> left(size_t(columns) + 1);  // cell edges in pixels
            std::vector<double> top(size_t(rows) + 1);
            for (int column = 0; column <= columns; ++column)
                left[size_t(column)] = x->coordToPixel(column0 + column - 0.5);
            for (int row = 0; row <= rows; ++row)
                top[size_t(row)] = y->coordToPixel(row0 + row - 0.5);
            std::map<QRgb, QPainterPath> runs;  // colour -> its cells (ordered: the same file every time)
            double sum = 0.0;
            int visible = 0;
            for (int row = 0; row < rows; ++row) {
                for (int column = 0; column < columns;) {
                    if (m_owner->isMasked(row0 + row, column0 + column)) {  // hatched by the caller
                        ++column;
                        continue;
                    }
                    const QRgb colour = gradient.color(values(row, column), range, log);
                    int end = column + 1;
                    while (end < columns && !m_owner->isMasked(row0 + row, column0 + end) &&
                           gradient.color(values(row, end), range, log) == colour)
                        ++end;
                    for (int c = column; c < end; ++c)
                        sum += values(row, c);
                    visible += end - column;
                    runs[colour].addRect(QRectF(QPointF(left[size_t(column)], top[size_t(row)]),
                                                QPointF(left[size_t(end)], top[size_t(row) + 1]))
                                             .normalized());
                    column = end;
                }
            }
            if (visible > 0)
                painter->fillRect(matrix, QColor(gradient.color(sum / visible, range, log)));
            for (const auto& [colour, path] : runs) {
                painter->setBrush(QColor(colour));
                painter->drawPath(path);
            }
        } else {
            const int k = imagePixelsPerCell(rows, columns);
            QImage image(columns * k, rows * k, QImage::Format_RGB32);
            std::vector<QRgb> line(size_t(columns) * size_t(k));
            for (int row = 0; row < rows; ++row) {
                for (int column = 0; column < columns; ++column) {
                    const double value =
                        m_owner->isMasked(row0 + row, column0 + column) ? kNan : double(values(row, column));
                    std::fill_n(line.begin() + qsizetype(column) * k, k, gradient.color(value, range, log));
                }
                for (int i = 0; i < k; ++i)
                    std::copy(line.begin(), line.end(), reinterpret_cast<QRgb*>(image.scanLine(row * k + i)));
            }
            painter->setRenderHint(QPainter::SmoothPixmapTransform, false);
            painter->setRenderHint(QPainter::LosslessImageRendering, true);
            painter->drawImage(matrix, image);
        }
        painter->restore();
    }

    const HeatmapPlot* m_owner;
    QCPAxisRect* m_rect;
    QCPColorMap* m_map;
    const CellOverlayState* m_state;
};

}  // namespace

int imagePixelsPerCell(int rows, int columns)
{
    return std::clamp(2048 / std::max({1, rows, columns}), 1, 16);
}

QCPLayerable* createCellOverlay(QCustomPlot* plot, const HeatmapPlot* owner, QCPAxisRect* rect, QCPColorMap* map,
                                const CellOverlayState* state)
{
    return new CellOverlay(plot, owner, rect, map, state);  // owned by the plot
}

}  // namespace attn
