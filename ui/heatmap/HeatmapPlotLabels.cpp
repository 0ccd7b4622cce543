// HeatmapPlot: its texts (title, colour-bar label, token labels thinned to what fits) and the
// layout that keeps its cells square.
#include "ui/heatmap/HeatmapPlot.h"

#include "ui/heatmap/HeatmapPlotPrivate.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

namespace attn {

constexpr int kMaxCachedTicks = 16;  // QCPAxisPainterPrivate's label cache: setMaxCost(16)
constexpr int kLongestLabel = 90;    // pixels; longer token labels are elided

// The title across the plot and the colour bar's label along its bar are never clipped: the
// first of their length variants (separated by U+009C) that fits is shown, else it is elided.
void HeatmapPlot::fitTexts(const QSize& size)
{
    const double title_room = std::max(20, size.width() - 12);
    d->title->setText(QFontMetricsF(d->title->font()).elidedText(m_title, Qt::ElideRight, title_room));
    const double bar_room =
        std::max(20, size.height() - (m_title.isEmpty() ? 0 : 30) - (m_compact ? 30 : 60));  // less the margins
    d->scale->axis()->setLabel(
        QFontMetricsF(d->scale->axis()->labelFont()).elidedText(m_bar_label, Qt::ElideRight, bar_room));
    // About one tick label per 40 pixels of bar, so that a short bar's labels do not overlap.
    d->scale->axis()->ticker()->setTickCount(std::clamp(int(bar_room / 40), 2, 5));
}

// Token labels where they fit: every n-th label so that labels never overlap, and numbers in
// the cells when a cell is large enough to hold "0.00" legibly.
void HeatmapPlot::updateLabels()
{
    fitTexts(m_render_size.isValid() ? m_render_size : this->size());
    const int rows = int(m_values.rows());
    const int columns = int(m_values.cols());
    const QSize size = m_render_size.isValid() ? m_render_size : this->size();
    QCPAxis* x = d->rect->axis(QCPAxis::atBottom);
    const QFontMetrics metrics(x->tickLabelFont());
    if (m_longest_label < 0) {  // once per set of labels, each distinct label measured once per font
        if (m_label_widths.size() > 4 * columns + 256)
            m_label_widths.clear();
        m_longest_label = 0;
        for (int column = 0; column < columns; ++column) {
            const QString label = columnLabel(m_drawn.first_column + column * m_factor);
            auto width = m_label_widths.constFind(label);
            if (width == m_label_widths.constEnd())
                width = m_label_widths.insert(label, metrics.horizontalAdvance(label));
            m_longest_label = std::max(m_longest_label, *width);
        }
    }
    const int longest = m_longest_label;
    // Estimated axis rect: the widget minus room for labels, titles and the colour bar.
    const int reserve_x = std::min(longest, 90) + (m_compact ? 8 : 30) + (d->scale->visible() ? 70 : 0);
    const int reserve_y = (m_compact ? 30 : 50) + (d->title->text().isEmpty() ? 0 : 20);
    // Zoomed, only part of the drawn cells is visible.
    const double shown_columns = std::min<double>(std::max(1, columns), visibleDrawnColumns());
    const double shown_rows = std::min<double>(std::max(1, rows), visibleDrawnRows());
    const double cell_width = double(std::max(10, size.width() - reserve_x)) / shown_columns;
    const double cell_height = double(std::max(10, size.height() - reserve_y - std::min(longest, 90))) / shown_rows;

    // Square cells are as small as the smaller of the two estimates.
    const double square = std::min(cell_width, cell_height);
    // At the same size the steps the last layout measured stay (see makeCellsSquare): a
    // keystroke does not rebuild the labels twice.
    const bool same_size = size == m_tick_size;
    m_tick_size = size;
    setTickSteps(m_square_cells ? square : cell_width, m_square_cells ? square : cell_height, same_size);
    const bool big_enough = cell_width >= 30 && cell_height >= 18;
    d->overlay.show_text = m_cell_text == CellText::Always || (m_cell_text == CellText::Auto && big_enough);
    d->overlay.show_legend = !m_compact;
}

void HeatmapPlot::setSquareCells(bool square)
{
    m_square_cells = square;
    scheduleReplot();
}

// Every n-th label so that labels never overlap: a label needs its font's height across the
// axis (x labels turn when a cell is narrower than the longest) plus a gap, and along x, when
// not turned, its width. Steps only grow with `at_least_current`, so that the label widths they
// bring never shrink the cells below what they were computed for.
bool HeatmapPlot::setTickSteps(double cell_width, double cell_height, bool at_least_current)
{
    const int rows = int(m_values.rows());
    const int columns = int(m_values.cols());
    QCPAxis* x = d->rect->axis(QCPAxis::atBottom);
    const QFontMetrics metrics(x->tickLabelFont());
    const int gap = 2;
    const bool was_rotated = x->tickLabelRotation() != 0;
    const int longest = std::min(m_longest_label, kLongestLabel);
    const bool rotate = longest + 4 > cell_width || (at_least_current && was_rotated);
    x->setTickLabelRotation(rotate ? -90 : 0);
    const double x_need = rotate ? metrics.height() + gap : longest + 6;
    int x_step = std::max(1, int(std::ceil(x_need / std::max(0.05, cell_width))));
    int y_step = std::max(1, int(std::ceil((metrics.height() + gap) / std::max(0.05, cell_height))));
    // Labels only on the drawn cells visible (all of them unless zoomed), at multiples of the
    // step counted from the matrix's first block, so that they stay put as the view pans.
    const QCPRange x_range = x->range();
    const QCPRange y_range = d->rect->axis(QCPAxis::atLeft)->range();
    const int x_from = std::clamp(int(std::ceil(x_range.lower - 1e-9)), 0, columns);
    const int x_to = std::clamp(int(std::floor(x_range.upper + 1e-9)) + 1, x_from, columns);
    const int y_from = std::clamp(int(std::ceil(y_range.lower - 1e-9)), 0, rows);
    const int y_to = std::clamp(int(std::floor(y_range.upper + 1e-9)) + 1, y_from, rows);
    if (m_compact && !m_render_size.isValid()) {
        // Thumbnails on screen show at most 16 labels per axis: QCustomPlot caches 16 rendered
        // tick labels per axis, and with more every replot renders and shapes all of them again
        // (at T = 512 that was ~5% of the CPU time of a keystroke). Exports keep every label
        // that fits: they are drawn once.
        x_step = std::max(x_step, (columns + kMaxCachedTicks - 1) / kMaxCachedTicks);
        y_step = std::max(y_step, (rows + kMaxCachedTicks - 1) / kMaxCachedTicks);
    }
    if (at_least_current && m_ticks.rows == rows && m_ticks.columns == columns &&
        m_ticks.x_to - m_ticks.x_from == x_to - x_from && m_ticks.y_to - m_ticks.y_from == y_to - y_from) {
        x_step = std::max(x_step, m_ticks.x_step);
        y_step = std::max(y_step, m_ticks.y_step);
    }
    const TickKey ticks{x_step, y_step, rows, columns, x_from, x_to, y_from, y_to, m_drawn};
    if (ticks == m_ticks)
        return rotate != was_rotated;
    m_ticks = ticks;
    auto elided = [&](const QString& text) { return metrics.elidedText(text, Qt::ElideRight, kLongestLabel); };
    const int first_x_block = m_drawn.first_column / m_factor;
    const int first_y_block = m_drawn.first_row / m_factor;
    auto first_tick = [](int from, int first_block, int step) {
        return from + (step - (first_block + from) % step) % step;
    };
    d->x_ticker->clear();
    for (int column = first_tick(x_from, first_x_block, x_step); column < x_to; column += x_step)
        d->x_ticker->addTick(column, elided(columnLabel(m_drawn.first_column + column * m_factor)));
    d->y_ticker->clear();
    for (int row = first_tick(y_from, first_y_block, y_step); row < y_to; row += y_step)
        d->y_ticker->addTick(row, elided(rowLabel(m_drawn.first_row + row * m_factor)));
    return true;
}

// After QCustomPlot has laid out the plot: if the cells are not square, pad the layout so they
// are, and if the labels were estimated for larger cells than the layout gave, thin them; then
// lay it out again (once; the padding is computed from the unpadded rectangle).
void HeatmapPlot::makeCellsSquare()
{
    if (d->squaring)
        return;
    // The title as laid out: its cell is the plot's column, narrower than the widget by the colour
    // bar and the padding (a zoomed head's title is long); one line either way.
    if (d->title->visible() && d->title->rect().width() > 20) {
        const QString fitted =
            QFontMetricsF(d->title->font())
                .elidedText(
                    m_title, Qt::ElideRight,
                    std::min<double>(d->title->rect().width() - 4,
                                     std::max(20, (m_render_size.isValid() ? m_render_size : size()).width() - 12)));
        if (fitted != d->title->text())
            d->title->setText(fitted);
    }
    QMargins wanted;
    if (m_square_cells && m_values.size() > 0) {
        const QRect padded = d->rect->rect();
        const QMargins& old = d->square_margins;
        const double width = padded.width() + old.left() + old.right();
        const double height = padded.height() + old.top() + old.bottom();
        const double shown_columns = std::min<double>(m_values.cols(), visibleDrawnColumns());
        const double shown_rows = std::min<double>(m_values.rows(), visibleDrawnRows());
        const double cell = std::min(width / shown_columns, height / shown_rows);
        const int extra_x = std::max(0, int(width - cell * shown_columns));
        const int extra_y = std::max(0, int(height - cell * shown_rows));
        wanted = QMargins(extra_x / 2, extra_y / 2, extra_x - extra_x / 2, extra_y - extra_y / 2);
    }
    bool thinned = false;
    if (m_values.size() > 0) {
        const QRect rect = d->rect->rect();
        const double cell_width = double(rect.width() - (wanted.left() + wanted.right()) +
                                         (d->square_margins.left() + d->square_margins.right())) /
                                  std::min<double>(m_values.cols(), visibleDrawnColumns());
        const double cell_height = double(rect.height() - (wanted.top() + wanted.bottom()) +
                                          (d->square_margins.top() + d->square_margins.bottom())) /
                                   std::min<double>(m_values.rows(), visibleDrawnRows());
        thinned = setTickSteps(cell_width, cell_height, true);
    }
    if (wanted == d->square_margins && !thinned)
        return;
    d->square_margins = wanted;
    d->squaring = true;
    d->plot->plotLayout()->setMargins(d->base_margins + wanted);
    d->plot->plotLayout()->update(QCPLayoutElement::upPreparation);
    d->plot->plotLayout()->update(QCPLayoutElement::upMargins);
    d->plot->plotLayout()->update(QCPLayoutElement::upLayout);
    d->squaring = false;
}

}  // namespace attn
