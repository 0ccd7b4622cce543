// HeatmapPlot: the matrix it is given, drawn whole or reduced (HeatmapReduction) on a worker
// thread, with the dimming of the top X % per row.
#include "ui/heatmap/HeatmapPlot.h"

#include "ui/heatmap/HeatmapPlotPrivate.h"
#include "ui/heatmap/ReductionNote.h"

#include "core/analysis/AttentionDisplay.h"
#include "ui/workers/ViewWorkers.h"

#include <QLocale>
#include <QThreadPool>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace attn {

namespace {

const MaskMatrix& orNone(const std::shared_ptr<const MaskMatrix>& mask)
{
    static const MaskMatrix none;
    return mask ? *mask : none;
}

// A matrix is often the last thing that holds a whole result (1.6 GB at 20,000 tokens): let it
// go on the pool, not on the GUI thread.
void releaseOffThread(std::shared_ptr<const void> owner)
{
    if (owner && owner.use_count() == 1)
        viewWorkers().start([owner = std::move(owner)]() mutable { owner.reset(); });
}

// For each row of blocks of `window`, the largest block value (max or mean, as reduceCells
// draws it) over the whole width of the matrix, blocks aligned on multiples of `factor` from
// column 0 as the window's are: what "each row to its max" divides a zoomed row by. Empty when
// the window spans every column (its own rows hold that).
std::vector<float> rowTops(const Matrix& values, const MaskMatrix& mask, CellWindow window, int factor,
                           CellReduction how)
{
    const int all_columns = int(values.cols());
    if (window.first_column == 0 && window.columns >= all_columns)
        return {};
    const bool masked = mask.rows() == values.rows() && mask.cols() == values.cols() && mask.size() > 0;
    const int f = std::max(1, factor);
    const int drawn_rows = (window.rows + f - 1) / f;
    const int blocks = (all_columns + f - 1) / f;
    std::vector<float> tops(size_t(drawn_rows), 0.0f);
    std::vector<double> sums(static_cast<size_t>(blocks));
    std::vector<std::int64_t> counts(static_cast<size_t>(blocks));
    for (int drawn = 0; drawn < drawn_rows; ++drawn) {
        const int first = window.first_row + drawn * f;
        const int end = std::min(int(values.rows()), first + f);
        float top = 0.0f;
        if (how == CellReduction::Max) {
            for (int row = first; row < end; ++row) {
                const float* line = values.row(row).data();
                const bool* hides = masked ? mask.row(row).data() : nullptr;
                for (int column = 0; column < all_columns; ++column)
                    if (!hides || !hides[column])
                        top = std::max(top, line[column]);
            }
        } else {
            std::fill(sums.begin(), sums.end(), 0.0);
            std::fill(counts.begin(), counts.end(), 0);
            for (int row = first; row < end; ++row) {
                const float* line = values.row(row).data();
                const bool* hides = masked ? mask.row(row).data() : nullptr;
                for (int column = 0; column < all_columns; ++column)
                    if (!hides || !hides[column]) {
                        sums[size_t(column / f)] += line[column];
                        ++counts[size_t(column / f)];
                    }
            }
            for (int block = 0; block < blocks; ++block)
                if (counts[size_t(block)] > 0)
                    top = std::max(top, float(sums[size_t(block)] / double(counts[size_t(block)])));
        }
        tops[size_t(drawn)] = top;
    }
    return tops;
}

// A window of the matrix reduced, and its rows' tops for PerRow: on a worker or here.
struct ReducedWindow {
    ReducedMatrix drawn;
    std::vector<float> row_tops;
};

ReducedWindow reduceWindow(const Matrix& values, const MaskMatrix& mask, CellWindow window, int factor,
                           CellReduction how, double top_mass, bool per_row)
{
    return {reduceCells(values, mask, window, factor, how, top_mass),
            per_row ? rowTops(values, mask, window, factor, how) : std::vector<float>()};
}

}  // namespace

void HeatmapPlot::newMatrix()
{
    m_reduction_job.supersede();  // a reduction still running for an earlier matrix is dropped
    m_jobs_running = 0;
    m_job_wanted = false;  // the new matrix is drawn for the current view
    m_job_again = false;
}

void HeatmapPlot::setMatrix(const Matrix& values, const QStringList& row_labels, const QStringList& column_labels,
                            const MaskMatrix& mask, std::shared_ptr<const void> keep_alive)
{
    // A keystroke calls this for every head with a new matrix of mostly the same shape and
    // labels: reuse the colour-map data when the size is unchanged and keep tick labels unless
    // the tokens changed. An all-false mask is dropped so nothing loops over its cells.
    const bool mask_fits = mask.rows() == values.rows() && mask.cols() == values.cols();
    const bool any_masked = mask_fits && mask.size() > 0 &&
                            std::memchr(mask.data(), true, size_t(mask.size())) != nullptr;  // bools are bytes 0/1
    static_assert(sizeof(bool) == 1);
    newMatrix();
    const int rows = int(values.rows());
    const int columns = int(values.cols());
    takeShape(rows, columns, row_labels, column_labels);
    const int whole_factor = attn::reductionFactor(rows, columns, kReducedSide);
    if (whole_factor == 1) {  // drawn whole: zooming only moves the axes
        m_shown_generation = ++m_request_generation;
        showDrawn({values, any_masked ? mask : MaskMatrix(), 1, MaskMatrix()}, CellWindow{0, 0, rows, columns}, rows,
                  columns, row_labels, column_labels);
        return;
    }
    // On screen a reduction reads every cell of the window once (400 million at 20,000 tokens):
    // it runs on a worker while `keep_alive` holds the matrix, and the plot shows its last
    // picture meanwhile. Offscreen (pictures, tests) it runs here. A zoomable plot keeps the
    // matrix (through `keep_alive`) to reduce the windows it zooms to.
    const bool on_screen = isVisible() && !testAttribute(Qt::WA_DontShowOnScreen);
    auto hidden = any_masked ? std::make_shared<const MaskMatrix>(mask) : nullptr;  // the caller's may change
    if (!keep_alive || !on_screen) {
        int factor = 1;
        const CellWindow window = wantedWindow(&factor);
        m_shown_generation = ++m_request_generation;
        ReducedWindow reduced = m_reduction_job.computeNow([&](const auto&) {
            return reduceWindow(values, orNone(hidden), window, factor, m_reduction, m_top_mass,
                                m_mapping == ColorMapping::PerRow);
        });
        showDrawn(std::move(reduced.drawn), window, rows, columns, row_labels, column_labels,
                  std::move(reduced.row_tops));
        if (m_zoomable && keep_alive) {
            m_source = &values;
            m_source_owner = std::move(keep_alive);
            m_source_mask = std::move(hidden);
        }
        return;
    }
    m_source = &values;
    m_source_owner = std::move(keep_alive);
    m_source_mask = std::move(hidden);
    startReduction();  // a new matrix does not wait for the reduction of the last one
}

void HeatmapPlot::setReducedMatrix(ReducedMatrix drawn, int full_rows, int full_columns, const QStringList& row_labels,
                                   const QStringList& column_labels)
{
    newMatrix();
    // Only the picture, without the matrix: a zoomed window of it is the picture magnified.
    takeShape(full_rows, full_columns, row_labels, column_labels);
    m_shown_generation = ++m_request_generation;
    showDrawn(std::move(drawn), CellWindow{0, 0, full_rows, full_columns}, full_rows, full_columns, row_labels,
              column_labels);
}

void HeatmapPlot::takeShape(int rows, int columns, const QStringList& row_labels, const QStringList& column_labels)
{
    if (rows != m_source_rows || columns != m_source_columns)
        m_view = QRectF();  // another shape: the whole of it (the same shape keeps the zoom, e.g. another head)
    m_source_rows = rows;
    m_source_columns = columns;
    m_source_row_labels = row_labels;
    m_source_column_labels = column_labels;
    dropSource();
}

void HeatmapPlot::dropSource()
{
    m_source = nullptr;
    releaseOffThread(std::move(m_source_owner));  // leaves m_source_owner empty
    m_source_mask.reset();
}

// The window of the matrix to draw for the view, in blocks of *factor cells aligned on
// multiples of the factor (so that panning does not shift the blocks), and that factor.
CellWindow HeatmapPlot::wantedWindow(int* factor) const
{
    const int rows = m_source_rows;
    const int columns = m_source_columns;
    *factor = attn::reductionFactor(rows, columns, kReducedSide);
    if (*factor == 1 || !isZoomed())
        return {0, 0, rows, columns};
    const QRectF view = viewWindow();
    int first_row = std::clamp(int(std::floor(view.top() + 1e-9)), 0, rows);
    int first_column = std::clamp(int(std::floor(view.left() + 1e-9)), 0, columns);
    const int end_row = std::clamp(int(std::ceil(view.bottom() - 1e-9)), first_row, rows);
    const int end_column = std::clamp(int(std::ceil(view.right() - 1e-9)), first_column, columns);
    const int f = attn::reductionFactor(end_row - first_row, end_column - first_column, kReducedSide);
    *factor = f;
    first_row = first_row / f * f;
    first_column = first_column / f * f;
    return {first_row, first_column, std::min(rows, (end_row + f - 1) / f * f) - first_row,
            std::min(columns, (end_column + f - 1) / f * f) - first_column};
}

// After the view changed: reduce the window it needs unless the drawn cells already hold it.
void HeatmapPlot::requestReduction(bool again)
{
    if (m_jobs_running > 0) {  // one view reduction at a time: the newest view once that ends
        m_job_wanted = true;
        m_job_again = m_job_again || again;
        return;
    }
    int factor = 1;
    const CellWindow wanted = wantedWindow(&factor);
    const bool same_matrix = m_full_rows == m_source_rows && m_full_columns == m_source_columns;
    const bool covered = same_matrix && factor == m_factor && m_drawn.first_row <= wanted.first_row &&
                         m_drawn.first_column <= wanted.first_column &&
                         m_drawn.first_row + m_drawn.rows >= wanted.first_row + wanted.rows &&
                         m_drawn.first_column + m_drawn.columns >= wanted.first_column + wanted.columns;
    if ((covered && !again) || !m_source)
        return;  // without the matrix the reduced picture is only magnified
    const bool on_screen = isVisible() && !testAttribute(Qt::WA_DontShowOnScreen);
    if (on_screen)
        startReduction();
    else
        reduceNow();
}

void HeatmapPlot::reduceNow()
{
    if (!m_source)
        return;
    int factor = 1;
    const CellWindow window = wantedWindow(&factor);
    m_job_wanted = false;
    m_job_again = false;
    m_jobs_running = 0;  // what a running job brings is older: computeNow drops it
    m_shown_generation = ++m_request_generation;
    ReducedWindow reduced = m_reduction_job.computeNow([&](const auto&) {
        return reduceWindow(*m_source, orNone(m_source_mask), window, factor, m_reduction, m_top_mass,
                            m_mapping == ColorMapping::PerRow);
    });
    showDrawn(std::move(reduced.drawn), window, m_source_rows, m_source_columns, m_source_row_labels,
              m_source_column_labels, std::move(reduced.row_tops));
}

void HeatmapPlot::startReduction()
{
    if (!m_source)
        return;
    int factor = 1;
    const CellWindow window = wantedWindow(&factor);
    const quint64 generation = ++m_request_generation;
    ++m_jobs_running;
    m_reduction_job.startAlongside(
        [source = m_source, owner = m_source_owner, hidden = m_source_mask, window, factor, how = m_reduction,
         top_mass = m_top_mass, per_row = m_mapping == ColorMapping::PerRow](const auto&) mutable {
            ReducedWindow reduced = reduceWindow(*source, orNone(hidden), window, factor, how, top_mass, per_row);
            owner.reset();
            hidden.reset();
            return reduced;
        },
        [this, window, rows = m_source_rows, columns = m_source_columns, generation, row_labels = m_source_row_labels,
         column_labels = m_source_column_labels](ReducedWindow reduced) {
            --m_jobs_running;
            // Shown unless a newer reduction of this matrix is already shown (a newer matrix drops
            // it before it comes here); an older view of the same matrix is still closer to the
            // view than what is drawn (a drag goes on while a window is reduced).
            if (generation > m_shown_generation) {
                m_shown_generation = generation;
                showDrawn(std::move(reduced.drawn), window, rows, columns, row_labels, column_labels,
                          std::move(reduced.row_tops));
            }
            if (m_jobs_running == 0 && m_job_wanted) {
                const bool again = m_job_again;
                m_job_wanted = false;
                m_job_again = false;
                requestReduction(again);
            }
            if (m_jobs_running == 0 && !m_zoomable)  // only a zoomable plot keeps the matrix
                dropSource();
        });
}

void HeatmapPlot::showDrawn(ReducedMatrix drawn, CellWindow window, int full_rows, int full_columns,
                            const QStringList& row_labels, const QStringList& column_labels,
                            std::vector<float> row_tops)
{
    const bool was_reduced = m_factor > 1;
    const int old_rows = int(m_values.rows());
    const int old_columns = int(m_values.cols());
    const bool moved = window != m_drawn;
    m_full_rows = full_rows;
    m_full_columns = full_columns;
    m_factor = drawn.factor;
    m_drawn = window;
    m_values = std::move(drawn.values);
    m_mask = std::move(drawn.mask);
    m_row_tops = row_tops.size() == size_t(m_values.rows()) ? std::move(row_tops) : std::vector<float>();
    outlineSelection();
    const bool reshaped =
        m_values.rows() != old_rows || m_values.cols() != old_columns || was_reduced != (m_factor > 1) || moved;
    if (reshaped || row_labels != m_row_labels || column_labels != m_column_labels) {
        m_row_labels = row_labels;
        m_column_labels = column_labels;
        m_longest_label = -1;
        m_ticks = {};
    }
    // A matrix drawn whole is dimmed here; a reduced one, or a window of it, by its reduction
    // (whose top mass is that of whole rows).
    const bool whole = m_factor == 1 && window == CellWindow{0, 0, full_rows, full_columns};
    if (m_top_mass < 1.0)
        m_dimmed =
            whole ? MaskMatrix(!AttentionDisplay::topMass(m_values, m_top_mass).array()) : std::move(drawn.dimmed);
    if (m_dimmed.rows() != m_values.rows() || m_dimmed.cols() != m_values.cols() || !m_dimmed.any())
        m_dimmed = MaskMatrix();
    updateColourValues();
    fillMap();
    updateRange();
    applyView();
    emit matrixShown();
}

// The drawn cell that holds the selected row and cell.
void HeatmapPlot::outlineSelection()
{
    d->overlay.selected_row = m_selected_row < m_drawn.first_row ? -1 : (m_selected_row - m_drawn.first_row) / m_factor;
    d->overlay.selected_column =
        m_selected_column < m_drawn.first_column ? -1 : (m_selected_column - m_drawn.first_column) / m_factor;
}

QString HeatmapPlot::reductionNote() const
{
    return attn::reductionNote(m_full_rows, m_full_columns, m_reduction);
}

QString reductionNote(int rows, int columns, CellReduction how)
{
    const int factor = reductionFactor(rows, columns, HeatmapPlot::kReducedSide);
    if (factor <= 1)
        return {};
    return (how == CellReduction::Max ? HeatmapPlot::tr("each cell: the largest of %1 x %1")
                                      : HeatmapPlot::tr("each cell: the mean of %1 x %1"))
        .arg(factor);
}

QString zoomNote(const QRect& cells, int rows, int columns, int factor, CellReduction how)
{
    const QLocale locale;
    auto span = [&locale](int first, int count) {
        return QStringLiteral("%1–%2").arg(locale.toString(first), locale.toString(first + std::max(1, count) - 1));
    };
    const QString queries = span(cells.y(), cells.height());
    const QString keys = span(cells.x(), cells.width());
    const QString where = rows == columns
                              ? HeatmapPlot::tr("queries %1, keys %2 of %3").arg(queries, keys, locale.toString(rows))
                              : HeatmapPlot::tr("queries %1 of %2, keys %3 of %4")
                                    .arg(queries, locale.toString(rows), keys, locale.toString(columns));
    const QString what = factor <= 1                 ? HeatmapPlot::tr("cells 1:1")
                         : how == CellReduction::Max ? HeatmapPlot::tr("each cell: the largest of %1 x %1").arg(factor)
                                                     : HeatmapPlot::tr("each cell: the mean of %1 x %1").arg(factor);
    return where + QStringLiteral(" · ") + what;
}

}  // namespace attn
