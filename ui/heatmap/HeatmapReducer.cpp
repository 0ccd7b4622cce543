#include "ui/heatmap/HeatmapReducer.h"

#include "ui/workers/ViewWorkers.h"

#include <QThreadPool>

#include <algorithm>
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
// draws it) over the whole width of the matrix, blocks aligned on multiples of their width from
// column 0 as the window's are: what "each row to its max" divides a zoomed row by. Empty when
// the window spans every column (its own rows hold that).
std::vector<float> rowTops(const Matrix& values, const MaskMatrix& mask, CellWindow window, BlockShape shape,
                           CellReduction how)
{
    const int all_columns = int(values.cols());
    if (window.first_column == 0 && window.columns >= all_columns)
        return {};
    const bool masked = mask.rows() == values.rows() && mask.cols() == values.cols() && mask.size() > 0;
    const int f = std::max(1, shape.rows);
    const int g = std::max(1, shape.columns);
    const int drawn_rows = (window.rows + f - 1) / f;
    const int blocks = (all_columns + g - 1) / g;
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
                        sums[size_t(column / g)] += line[column];
                        ++counts[size_t(column / g)];
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

// The work of a reduction, on the worker or here: the same cells either way.
DrawnCells reduceWindow(const Matrix& values, const MaskMatrix& mask, CellWindow window, BlockShape blocks,
                        const ReductionRecipe& recipe)
{
    DrawnCells drawn;
    drawn.cells = reduceCells(values, mask, window, blocks, recipe.how, recipe.top_mass);
    drawn.window = window;
    if (recipe.per_row)
        drawn.row_tops = rowTops(values, mask, window, blocks, recipe.how);
    return drawn;
}

}  // namespace

HeatmapReducer::HeatmapReducer(QObject* owner, const HeatmapZoom& zoom, Show show, Idle idle)
    : m_zoom(zoom), m_show(std::move(show)), m_idle(std::move(idle)), m_job(owner)
{
}

std::optional<DrawnCells> HeatmapReducer::setMatrix(const Matrix& values, const QStringList& row_labels,
                                                    const QStringList& column_labels, const MaskMatrix& mask,
                                                    std::shared_ptr<const void> keep_alive, bool on_screen,
                                                    bool zoomable, const ReductionRecipe& recipe)
{
    // A keystroke calls this for every head with a new matrix of mostly the same shape and
    // labels. An all-false mask is dropped so nothing loops over its cells.
    const bool mask_fits = mask.rows() == values.rows() && mask.cols() == values.cols();
    const bool any_masked = mask_fits && mask.size() > 0 &&
                            std::memchr(mask.data(), true, size_t(mask.size())) != nullptr;  // bools are bytes 0/1
    static_assert(sizeof(bool) == 1);
    newMatrix();
    const int rows = int(values.rows());
    const int columns = int(values.cols());
    if (!attn::blockShape(rows, columns, kReducedSide).reduces()) {  // drawn whole: zooming only moves the axes
        shownNow();
        return DrawnCells{{values, any_masked ? mask : MaskMatrix(), BlockShape(), MaskMatrix()},
                          CellWindow{0, 0, rows, columns},
                          rows,
                          columns,
                          row_labels,
                          column_labels,
                          {}};
    }
    // On screen a reduction reads every cell of the window once (400 million at 20,000 tokens):
    // it runs on a worker while `keep_alive` holds the matrix, and the plot shows its last
    // picture meanwhile. Offscreen (pictures, tests) it runs here. A zoomable plot keeps the
    // matrix (through `keep_alive`) to reduce the windows it zooms to.
    auto hidden = any_masked ? std::make_shared<const MaskMatrix>(mask) : nullptr;  // the caller's may change
    if (!keep_alive || !on_screen) {
        BlockShape blocks;
        const CellWindow window = wantedWindow(&blocks);
        DrawnCells drawn = reduceNow(values, orNone(hidden), window, blocks, recipe, row_labels, column_labels);
        if (zoomable && keep_alive)
            keep(values, std::move(keep_alive), std::move(hidden), row_labels, column_labels);
        return drawn;
    }
    keep(values, std::move(keep_alive), std::move(hidden), row_labels, column_labels);
    startView(recipe);  // a new matrix does not wait for the reduction of the last one
    return std::nullopt;
}

DrawnCells HeatmapReducer::setReducedMatrix(ReducedMatrix drawn, const QStringList& row_labels,
                                            const QStringList& column_labels)
{
    newMatrix();
    shownNow();
    const int rows = m_zoom.rows();
    const int columns = m_zoom.columns();
    return {std::move(drawn), CellWindow{0, 0, rows, columns}, rows, columns, row_labels, column_labels, {}};
}

HeatmapReducer::~HeatmapReducer()
{
    dropSource();
}

void HeatmapReducer::newMatrix()
{
    m_job.supersede();  // a reduction still running for an earlier matrix is dropped
    m_jobs_running = 0;
    m_job_wanted = false;  // the new matrix is drawn for the current view
    m_job_again = false;
    dropSource();
}

void HeatmapReducer::keep(const Matrix& values, std::shared_ptr<const void> keep_alive,
                          std::shared_ptr<const MaskMatrix> mask, const QStringList& row_labels,
                          const QStringList& column_labels)
{
    m_source = &values;
    m_source_owner = std::move(keep_alive);
    m_source_mask = std::move(mask);
    m_source_row_labels = row_labels;
    m_source_column_labels = column_labels;
}

void HeatmapReducer::dropSource()
{
    m_source = nullptr;
    releaseOffThread(std::move(m_source_owner));  // leaves m_source_owner empty
    m_source_mask.reset();
}

DrawnCells HeatmapReducer::reduceNow(const Matrix& values, const MaskMatrix& mask, CellWindow window, BlockShape blocks,
                                     const ReductionRecipe& recipe, const QStringList& row_labels,
                                     const QStringList& column_labels)
{
    m_jobs_running = 0;  // what a running job brings is older: computeNow drops it
    shownNow();
    DrawnCells drawn =
        m_job.computeNow([&](const auto&) { return reduceWindow(values, mask, window, blocks, recipe); });
    drawn.full_rows = m_zoom.rows();
    drawn.full_columns = m_zoom.columns();
    drawn.row_labels = row_labels;
    drawn.column_labels = column_labels;
    return drawn;
}

DrawnCells HeatmapReducer::reduceViewNow(const ReductionRecipe& recipe)
{
    BlockShape blocks;
    const CellWindow window = wantedWindow(&blocks);
    m_job_wanted = false;
    m_job_again = false;
    return reduceNow(*m_source, orNone(m_source_mask), window, blocks, recipe, m_source_row_labels,
                     m_source_column_labels);
}

void HeatmapReducer::startView(const ReductionRecipe& recipe)
{
    if (!m_source)
        return;
    BlockShape blocks;
    const CellWindow window = wantedWindow(&blocks);
    const int rows = m_zoom.rows();
    const int columns = m_zoom.columns();
    const quint64 generation = ++m_request_generation;
    ++m_jobs_running;
    m_job.startAlongside(
        [source = m_source, owner = m_source_owner, hidden = m_source_mask, window, blocks, recipe, rows, columns,
         row_labels = m_source_row_labels, column_labels = m_source_column_labels](const auto&) mutable {
            DrawnCells drawn = reduceWindow(*source, orNone(hidden), window, blocks, recipe);
            owner.reset();
            hidden.reset();
            drawn.full_rows = rows;
            drawn.full_columns = columns;
            drawn.row_labels = std::move(row_labels);
            drawn.column_labels = std::move(column_labels);
            return drawn;
        },
        [this, generation](DrawnCells drawn) { arrived(generation, std::move(drawn)); });
}

void HeatmapReducer::arrived(quint64 generation, DrawnCells drawn)
{
    --m_jobs_running;
    // Shown unless a newer reduction of this matrix is already shown (a newer matrix drops it
    // before it comes here); an older view of the same matrix is still closer to the view than
    // what is drawn (a drag goes on while a window is reduced).
    if (generation > m_shown_generation) {
        m_shown_generation = generation;
        m_show(std::move(drawn));
    }
    if (m_jobs_running > 0)
        return;
    const bool wanted = m_job_wanted;
    const bool again = m_job_again;
    m_job_wanted = false;
    m_job_again = false;
    m_idle(wanted, again);
}

bool HeatmapReducer::deferWhileRunning(bool again)
{
    if (m_jobs_running == 0)
        return false;
    m_job_wanted = true;
    m_job_again = m_job_again || again;
    return true;
}

}  // namespace attn
