#include "ui/heatmap/HeatmapLabels.h"

#include <qcustomplot.h>

#include <QFontMetrics>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace attn {

namespace {

constexpr int kMaxCachedTicks = 16;  // QCPAxisPainterPrivate's label cache: setMaxCost(16)
constexpr int kLongestLabel = 90;    // pixels; longer token labels are elided
constexpr int kSmallestLabelledThumbnail = 120;  // pixels a side; smaller thumbnails have no token labels

QList<std::pair<int, QString>> ticksOf(QCPAxisTickerText& ticker, const QCPRange& range, int first, int factor)
{
    QList<std::pair<int, QString>> shown;
    for (auto tick = ticker.ticks().cbegin(); tick != ticker.ticks().cend(); ++tick)
        if (range.contains(tick.key()))
            shown.append({first + int(std::lround((tick.key() + 0.5) * factor - 0.5)), tick.value()});
    return shown;
}

}  // namespace

int niceTickStep(double least)
{
    // 1, 2, 5, then 10, 20, 25, 50 times a power of ten.
    for (const int step : {1, 2, 5})
        if (least <= step + 1e-9)
            return step;
    for (std::int64_t decade = 10; decade <= std::numeric_limits<int>::max() / 5; decade *= 10)
        for (const std::int64_t step : {decade, 2 * decade, 5 * decade / 2, 5 * decade})
            if (least <= double(step) + 1e-9)
                return int(step);
    return std::numeric_limits<int>::max();
}

namespace {

// Square cells for `columns` x `rows` cells in a width x height room: the cells' width and
// height. A matrix much longer than wide (3,388 queries x 7 keys) would be a sliver with square
// cells: neither side of the plot is narrower than half its room, its cells then stretched.
std::pair<double, double> squaredCell(double width, double height, double columns, double rows)
{
    constexpr double kLeastSideShare = 0.5;
    const double cell = std::min(width / columns, height / rows);
    return {std::max(cell * columns, width * kLeastSideShare) / columns,
            std::max(cell * rows, height * kLeastSideShare) / rows};
}

}  // namespace

HeatmapLabels::HeatmapLabels(QCustomPlot* plot, QCPAxisRect* rect, QCPTextElement* title, QCPColorScale* scale)
    : m_plot(plot),
      m_rect(rect),
      m_title_element(title),
      m_scale(scale),
      m_x(rect->axis(QCPAxis::atBottom)),
      m_y(rect->axis(QCPAxis::atLeft)),
      m_x_ticker(new QCPAxisTickerText),
      m_y_ticker(new QCPAxisTickerText)
{
    m_x->setTicker(m_x_ticker);
    m_y->setTicker(m_y_ticker);
}

void HeatmapLabels::setTitle(const QString& title, const QSize& size)
{
    m_title = title;
    m_title_element->setVisible(!title.isEmpty());
    fitTexts(size);
}

void HeatmapLabels::setBarLabel(const QString& label, const QSize& size)
{
    m_bar_label = label;
    fitTexts(size);
}

void HeatmapLabels::fitTexts(const QSize& size)
{
    const double title_room = std::max(20, size.width() - 12);
    m_title_element->setText(QFontMetricsF(m_title_element->font()).elidedText(m_title, Qt::ElideRight, title_room));
    const double bar_room =
        std::max(20, size.height() - (m_title.isEmpty() ? 0 : 30) - (m_compact ? 30 : 60));  // less the margins
    m_scale->axis()->setLabel(
        QFontMetricsF(m_scale->axis()->labelFont()).elidedText(m_bar_label, Qt::ElideRight, bar_room));
    // About one tick label per 40 pixels of bar, so that a short bar's labels do not overlap.
    m_scale->axis()->ticker()->setTickCount(std::clamp(int(bar_room / 40), 2, 5));
}

void HeatmapLabels::setCompact(bool compact, const QFont& font)
{
    m_compact = compact;
    QFont tick_font = font;
    tick_font.setPixelSize(compact ? 10 : 13);
    QFont title_font = font;
    title_font.setPixelSize(compact ? 13 : 16);
    title_font.setWeight(QFont::DemiBold);
    m_title_element->setFont(title_font);
    fontChanged();
    for (QCPAxis* axis : {m_x, m_y}) {
        axis->setTickLabelFont(tick_font);
        axis->setLabelFont(tick_font);
        axis->setTickLabelPadding(compact ? 2 : 4);
    }
    m_rect->setAutoMargins(QCP::msAll);
    m_base_margins = compact ? QMargins(2, 2, 2, 2) : QMargins(6, 6, 6, 6);
    m_plot->plotLayout()->setMargins(m_base_margins);
    m_rect->layout()->setMargins(m_square_margins);
}

// Token labels where they fit: every n-th label so that labels never overlap, and numbers in
// the cells when a cell is large enough to hold "0.00" legibly.
bool HeatmapLabels::layOut(const QSize& size, const DrawnGrid& grid, bool square, bool thumbnail)
{
    fitTexts(size);
    // In a grid of thumbnails a label gets a sixth of the thumbnail at most, so that the map keeps
    // most of it: longer token labels are elided, as a small-multiples figure shortens them.
    const int room =
        m_compact ? std::clamp(std::min(size.width(), size.height()) / 6, 24, kLongestLabel) : kLongestLabel;
    if (room != m_label_room) {
        m_label_room = room;
        m_ticks = {};
    }
    // A thumbnail too small for labels to leave the map its room (16 heads in a small window):
    // none at all; the head's title and the hover still say what it shows.
    const bool labelled = !m_compact || std::min(size.width(), size.height()) >= kSmallestLabelledThumbnail;
    for (QCPAxis* axis : {m_x, m_y})
        if (axis->tickLabels() != labelled)
            axis->setTickLabels(labelled);
    const int rows = grid.rows;
    const int columns = grid.columns;
    const int longest = labelled ? std::min(longestLabel(grid), m_label_room) : 0;
    // Estimated axis rect: the widget minus room for labels, titles and the colour bar.
    const int reserve_x = longest + (m_compact ? 8 : 30) + (m_scale->visible() ? 70 : 0);
    const int reserve_y = (m_compact ? 30 : 50) + (m_title_element->text().isEmpty() ? 0 : 20);
    // Zoomed, only part of the drawn cells is visible.
    const double shown_columns = std::min<double>(std::max(1, columns), visibleDrawnColumns());
    const double shown_rows = std::min<double>(std::max(1, rows), visibleDrawnRows());
    const double cell_width = double(std::max(10, size.width() - reserve_x)) / shown_columns;
    const double cell_height = double(std::max(10, size.height() - reserve_y - longest)) / shown_rows;

    // Square cells are as small as the smaller of the two estimates (squaredCell).
    const auto [square_width, square_height] =
        squaredCell(cell_width * shown_columns, cell_height * shown_rows, shown_columns, shown_rows);
    // At the same size the steps the last layout measured stay (see fitLayout): a keystroke does
    // not rebuild the labels twice.
    const bool same_size = keepsStepsAt(size);
    setTickSteps(square ? square_width : cell_width, square ? square_height : cell_height, same_size, grid, thumbnail);
    return cell_width >= 30 && cell_height >= 18;
}

// Once: the padding is computed from the unpadded rectangle.
void HeatmapLabels::fitLayout(const QSize& size, const DrawnGrid& grid, bool square, bool thumbnail)
{
    if (m_squaring)
        return;
    // The title as laid out: its cell is the plot's column, narrower than the widget by the colour
    // bar and the padding (a zoomed head's title is long); one line either way.
    if (m_title_element->visible() && m_title_element->rect().width() > 20) {
        const QString fitted =
            QFontMetricsF(m_title_element->font())
                .elidedText(m_title, Qt::ElideRight,
                            std::min<double>(m_title_element->rect().width() - 4, std::max(20, size.width() - 12)));
        if (fitted != m_title_element->text())
            m_title_element->setText(fitted);
    }
    const bool any = grid.rows > 0 && grid.columns > 0;
    QMargins wanted;
    if (square && any) {
        const QRect padded = m_rect->rect();
        const QMargins& old = m_square_margins;
        const double width = padded.width() + old.left() + old.right();
        const double height = padded.height() + old.top() + old.bottom();
        const double shown_columns = std::min<double>(grid.columns, visibleDrawnColumns());
        const double shown_rows = std::min<double>(grid.rows, visibleDrawnRows());
        const auto [cell_width, cell_height] = squaredCell(width, height, shown_columns, shown_rows);
        const int extra_x = std::max(0, int(width - cell_width * shown_columns));
        const int extra_y = std::max(0, int(height - cell_height * shown_rows));
        wanted = QMargins(extra_x / 2, extra_y / 2, extra_x - extra_x / 2, extra_y - extra_y / 2);
    }
    bool thinned = false;
    if (any) {
        const QRect rect = m_rect->rect();
        const double cell_width = double(rect.width() - (wanted.left() + wanted.right()) +
                                         (m_square_margins.left() + m_square_margins.right())) /
                                  std::min<double>(grid.columns, visibleDrawnColumns());
        const double cell_height = double(rect.height() - (wanted.top() + wanted.bottom()) +
                                          (m_square_margins.top() + m_square_margins.bottom())) /
                                   std::min<double>(grid.rows, visibleDrawnRows());
        thinned = setTickSteps(cell_width, cell_height, true, grid, thumbnail);
    }
    if (wanted == m_square_margins && !thinned)
        return;
    m_square_margins = wanted;
    m_squaring = true;
    m_rect->layout()->setMargins(wanted);
    m_plot->plotLayout()->update(QCPLayoutElement::upPreparation);
    m_plot->plotLayout()->update(QCPLayoutElement::upMargins);
    m_plot->plotLayout()->update(QCPLayoutElement::upLayout);
    m_squaring = false;
}

double HeatmapLabels::visibleDrawnColumns() const
{
    return std::max(1e-3, m_x->range().size());
}

double HeatmapLabels::visibleDrawnRows() const
{
    return std::max(1e-3, m_y->range().size());
}

void HeatmapLabels::setLabels(const QStringList& row_labels, const QStringList& column_labels, bool reshaped)
{
    if (!reshaped && row_labels == m_row_labels && column_labels == m_column_labels)
        return;
    m_row_labels = row_labels;
    m_column_labels = column_labels;
    m_longest_label = -1;
    m_ticks = {};
}

void HeatmapLabels::fontChanged()
{
    m_longest_label = -1;
    m_label_widths.clear();
    m_ticks = {};
}

QString HeatmapLabels::rowLabel(int row) const
{
    return row < m_row_labels.size() ? m_row_labels[row] : QString::number(row);
}

QString HeatmapLabels::columnLabel(int column) const
{
    return column < m_column_labels.size() ? m_column_labels[column] : QString::number(column);
}

int HeatmapLabels::longestLabel(const DrawnGrid& grid)
{
    if (m_longest_label < 0) {  // once per set of labels, each distinct label measured once per font
        const QFontMetrics metrics(m_x->tickLabelFont());
        if (m_label_widths.size() > 4 * grid.columns + 256)
            m_label_widths.clear();
        m_longest_label = 0;
        for (int column = 0; column < grid.columns; ++column) {
            const QString label = columnLabel(grid.window.first_column + column * grid.blocks.columns);
            auto width = m_label_widths.constFind(label);
            if (width == m_label_widths.constEnd())
                width = m_label_widths.insert(label, metrics.horizontalAdvance(label));
            m_longest_label = std::max(m_longest_label, *width);
        }
    }
    return m_longest_label;
}

bool HeatmapLabels::keepsStepsAt(const QSize& size)
{
    const bool same_size = size == m_tick_size;
    m_tick_size = size;
    return same_size;
}

// A label needs its font's height across the axis plus a gap, and along x, when not turned, its
// width.
bool HeatmapLabels::setTickSteps(double cell_width, double cell_height, bool at_least_current, const DrawnGrid& grid,
                                 bool thumbnail)
{
    const int rows = grid.rows;
    const int columns = grid.columns;
    QCPAxis* x = m_x;
    const QFontMetricsF metrics(x->tickLabelFont());
    const double gap = 1;
    const bool was_rotated = x->tickLabelRotation() != 0;
    const int longest = std::min(m_longest_label, m_label_room);
    const bool rotate = longest + 4 > cell_width || (at_least_current && was_rotated);
    x->setTickLabelRotation(rotate ? -90 : 0);
    // What a label's glyphs take across its axis, capitals to descenders: the font's leading
    // (height() is a line's) left half of the labels out where every one fits (13 tokens).
    const double across = std::ceil(metrics.capHeight() + metrics.descent());
    const double x_need = rotate ? across + gap : longest + 6;
    // Steps in tokens of the matrix (a reduced axis has several per drawn cell).
    const int x_block = std::max(1, grid.blocks.columns);
    const int y_block = std::max(1, grid.blocks.rows);
    double x_tokens = x_need / std::max(0.05, cell_width) * x_block;
    double y_tokens = (across + gap) / std::max(0.05, cell_height) * y_block;
    const QCPRange x_range = x->range();
    const QCPRange y_range = m_y->range();
    const int x_from = std::clamp(int(std::ceil(x_range.lower - 1e-9)), 0, columns);
    const int x_to = std::clamp(int(std::floor(x_range.upper + 1e-9)) + 1, x_from, columns);
    const int y_from = std::clamp(int(std::ceil(y_range.lower - 1e-9)), 0, rows);
    const int y_to = std::clamp(int(std::floor(y_range.upper + 1e-9)) + 1, y_from, rows);
    if (thumbnail) {
        // Thumbnails on screen show at most 16 labels per axis: QCustomPlot caches 16 rendered
        // tick labels per axis, and with more every replot renders and shapes all of them again
        // (at T = 512 that was ~5% of the CPU time of a keystroke). Exports keep every label
        // that fits: they are drawn once.
        x_tokens = std::max(x_tokens, double(columns * x_block) / kMaxCachedTicks);
        y_tokens = std::max(y_tokens, double(rows * y_block) / kMaxCachedTicks);
    }
    // One rule for both axes of a map whose rows and columns are the same tokens: one "nice"
    // step, the larger need of the two (a grid's maps, all of one size, get the same).
    if (grid.same_tokens)
        x_tokens = y_tokens = std::max(x_tokens, y_tokens);
    int x_step = niceTickStep(x_tokens);
    int y_step = niceTickStep(y_tokens);
    if (at_least_current && m_ticks.rows == rows && m_ticks.columns == columns &&
        m_ticks.x_to - m_ticks.x_from == x_to - x_from && m_ticks.y_to - m_ticks.y_from == y_to - y_from) {
        x_step = std::max(x_step, m_ticks.x_step);
        y_step = std::max(y_step, m_ticks.y_step);
    }
    const TickKey ticks{x_step, y_step, rows, columns, x_from, x_to, y_from, y_to, grid.window};
    if (ticks == m_ticks)
        return rotate != was_rotated;
    m_ticks = ticks;
    auto elided = [&](const QString& text) { return metrics.elidedText(text, Qt::ElideRight, m_label_room); };
    // Every token at a multiple of the step, wherever the view is panned, at its own place in
    // its drawn cell (the centre of cell i is coordinate i; a reduced cell holds `block` tokens).
    const auto add_ticks = [&](QCPAxisTickerText& ticker, int step, int block, int first, int count, int from, int to,
                               auto label) {
        ticker.clear();
        const int first_token = first + from * block;
        const int end_token = std::min(first + to * block, first + count);
        for (int token = (first_token + step - 1) / step * step; token < end_token; token += step)
            ticker.addTick((token - first + 0.5) / block - 0.5, elided(label(token)));
    };
    add_ticks(*m_x_ticker, x_step, x_block, grid.window.first_column, grid.window.columns, x_from, x_to,
              [this](int token) { return columnLabel(token); });
    add_ticks(*m_y_ticker, y_step, y_block, grid.window.first_row, grid.window.rows, y_from, y_to,
              [this](int token) { return rowLabel(token); });
    return true;
}

QList<std::pair<int, QString>> HeatmapLabels::shownRowLabels(const DrawnGrid& grid) const
{
    if (!m_y->tickLabels())
        return {};
    return ticksOf(*m_y_ticker, m_y->range(), grid.window.first_row, grid.blocks.rows);
}

QList<std::pair<int, QString>> HeatmapLabels::shownColumnLabels(const DrawnGrid& grid) const
{
    if (!m_x->tickLabels())
        return {};
    return ticksOf(*m_x_ticker, m_x->range(), grid.window.first_column, grid.blocks.columns);
}

}  // namespace attn
