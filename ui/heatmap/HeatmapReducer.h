#pragma once

#include "core/base/MaskMatrix.h"
#include "core/base/Tensor.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/heatmap/HeatmapZoom.h"
#include "ui/workers/LatestJob.h"

#include <QStringList>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace attn {

// A window of a matrix reduced (HeatmapReduction), ready to draw: its cells, where they lie in
// the matrix, and what colouring each row to its max needs of a window narrower than the matrix.
struct DrawnCells {
    ReducedMatrix cells;
    CellWindow window;
    int full_rows = 0;  // the matrix's
    int full_columns = 0;
    QStringList row_labels;  // the matrix's
    QStringList column_labels;
    // PerRow of a window narrower than the matrix: each drawn row's largest drawn value over the
    // whole row (not only the columns in view); empty: the drawn rows' own.
    std::vector<float> row_tops;
};

// How to reduce: the cells' reduction, the top mass dimmed by block, whether rows need their tops.
struct ReductionRecipe {
    CellReduction how = CellReduction::Max;
    double top_mass = 1.0;
    bool per_row = false;
};

// The reduced drawing of a large matrix: a matrix with a side over kReducedSide is drawn in
// blocks (reduceCells), here or on a worker (viewWorkers; the newest matrix wins, one window at
// a time), for the window the zoom shows. It keeps the matrix while something (keep_alive) owns
// it, to reduce the windows the view moves to. A reduction that arrives is handed to `show` on
// the owner's thread; once none is running, `idle` is told whether a view asked for meanwhile is
// still to reduce.
class HeatmapReducer {
public:
    // Drawn cells per side above which a matrix is reduced: about the pixels of a large plot.
    static constexpr int kReducedSide = 1024;

    using Show = std::function<void(DrawnCells)>;
    using Idle = std::function<void(bool wanted, bool again)>;
    // `zoom` holds the matrix's shape and the view.
    HeatmapReducer(QObject* owner, const HeatmapZoom& zoom, Show show, Idle idle);
    ~HeatmapReducer();

    // A new matrix of the zoom's shape: drawn whole, or reduced here (off screen, or when nothing
    // keeps it alive), both returned, or on a worker (nothing returned; `show` gets it). A
    // zoomable plot keeps the matrix through `keep_alive`.
    std::optional<DrawnCells> setMatrix(const Matrix& values, const QStringList& row_labels,
                                        const QStringList& column_labels, const MaskMatrix& mask,
                                        std::shared_ptr<const void> keep_alive, bool on_screen, bool zoomable,
                                        const ReductionRecipe& recipe);
    // A picture reduced elsewhere, of the whole of a matrix of the zoom's shape.
    DrawnCells setReducedMatrix(ReducedMatrix drawn, const QStringList& row_labels, const QStringList& column_labels);
    void dropSource();  // released off the GUI thread: it may be the last hold on a whole result
    bool hasSource() const { return m_source != nullptr; }

    // The window the view needs, in blocks of *blocks cells (see HeatmapZoom::wantedWindow).
    CellWindow wantedWindow(BlockShape* blocks) const { return m_zoom.wantedWindow(kReducedSide, blocks); }
    // The view's window of the matrix kept, here (what a job under way brings is older) or on
    // the worker.
    DrawnCells reduceViewNow(const ReductionRecipe& recipe);
    void startView(const ReductionRecipe& recipe);
    // While a reduction runs, a view asked for waits (again: even if the drawn cells hold it) and
    // `idle` hears of it when the last one ends; true when it waits.
    bool deferWhileRunning(bool again);
    bool isRunning() const { return m_jobs_running > 0; }
    bool isPending() const { return m_jobs_running > 0 || m_job_wanted; }

private:
    void newMatrix();  // the reductions under way and the matrix kept are dropped
    void keep(const Matrix& values, std::shared_ptr<const void> keep_alive, std::shared_ptr<const MaskMatrix> mask,
              const QStringList& row_labels, const QStringList& column_labels);
    DrawnCells reduceNow(const Matrix& values, const MaskMatrix& mask, CellWindow window, BlockShape blocks,
                         const ReductionRecipe& recipe, const QStringList& row_labels,
                         const QStringList& column_labels);
    void shownNow() { m_shown_generation = ++m_request_generation; }
    void arrived(quint64 generation, DrawnCells drawn);

    const HeatmapZoom& m_zoom;
    Show m_show;
    Idle m_idle;
    // One request per matrix; the reductions of its views run alongside, and a new matrix drops them.
    LatestJob m_job;
    quint64 m_request_generation = 0;  // reductions asked for (matrices and views)
    quint64 m_shown_generation = 0;    // the newest reduction shown
    int m_jobs_running = 0;
    bool m_job_wanted = false;  // a view to reduce for once the running reductions end
    bool m_job_again = false;   // ... even if the drawn cells hold it
    const Matrix* m_source = nullptr;
    std::shared_ptr<const void> m_source_owner;
    std::shared_ptr<const MaskMatrix> m_source_mask;  // null: nothing masked
    QStringList m_source_row_labels;
    QStringList m_source_column_labels;
};

}  // namespace attn
