// HeatmapPlot: the matrix it is given, drawn whole or reduced (HeatmapReduction) on a worker
// thread, with the dimming of the top X % per row.
#include "ui/heatmap/HeatmapPlot.h"

#include "ui/heatmap/HeatmapPlotPrivate.h"
#include "ui/heatmap/ReductionNote.h"

#include "core/analysis/AttentionDisplay.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

#include <algorithm>
#include <cstring>

namespace attn {

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
    const quint64 generation = ++m_matrix_generation;
    const int factor = attn::reductionFactor(int(values.rows()), int(values.cols()), kReducedSide);
    if (factor == 1) {
        showDrawn({values, any_masked ? mask : MaskMatrix(), 1}, int(values.rows()), int(values.cols()), row_labels,
                  column_labels);
        return;
    }
    // On screen a reduction reads every cell once (400 million at 20,000 tokens): it runs on a
    // worker while `keep_alive` holds the matrix, and the plot shows its last picture meanwhile.
    // Offscreen (pictures, tests) it runs here.
    const bool on_screen = isVisible() && !testAttribute(Qt::WA_DontShowOnScreen);
    if (!keep_alive || !on_screen) {
        showDrawn(reduceCells(values, any_masked ? mask : MaskMatrix(), factor, m_reduction, m_top_mass),
                  int(values.rows()), int(values.cols()), row_labels, column_labels);
        return;
    }
    QPointer<HeatmapPlot> self(this);
    const Matrix* source = &values;
    MaskMatrix hidden = any_masked ? mask : MaskMatrix();  // the caller's mask may change meanwhile
    const CellReduction how = m_reduction;
    const double top_mass = m_top_mass;
    QThreadPool::globalInstance()->start([self, source, hidden = std::move(hidden), factor, how, top_mass, generation,
                                          keep_alive = std::move(keep_alive), row_labels, column_labels]() mutable {
        auto reduced = std::make_shared<ReducedMatrix>(reduceCells(*source, hidden, factor, how, top_mass));
        const int rows = int(source->rows());
        const int columns = int(source->cols());
        keep_alive.reset();
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, reduced, rows, columns, generation, row_labels, column_labels] {
                if (self && self->m_matrix_generation == generation)  // else a newer matrix was set
                    self->showDrawn(std::move(*reduced), rows, columns, row_labels, column_labels);
            },
            Qt::QueuedConnection);
    });
}

void HeatmapPlot::setReducedMatrix(ReducedMatrix drawn, int full_rows, int full_columns,
                                   const QStringList& row_labels, const QStringList& column_labels)
{
    ++m_matrix_generation;  // a reduction still running for an earlier matrix is dropped
    showDrawn(std::move(drawn), full_rows, full_columns, row_labels, column_labels);
}

void HeatmapPlot::showDrawn(ReducedMatrix drawn, int full_rows, int full_columns, const QStringList& row_labels,
                            const QStringList& column_labels)
{
    const bool was_reduced = m_factor > 1;
    const int old_rows = int(m_values.rows());
    const int old_columns = int(m_values.cols());
    m_full_rows = full_rows;
    m_full_columns = full_columns;
    m_factor = drawn.factor;
    m_values = std::move(drawn.values);
    m_mask = std::move(drawn.mask);
    outlineSelection();
    const bool reshaped =
        m_values.rows() != old_rows || m_values.cols() != old_columns || was_reduced != (m_factor > 1);
    if (reshaped || row_labels != m_row_labels || column_labels != m_column_labels) {
        m_row_labels = row_labels;
        m_column_labels = column_labels;
        m_longest_label = -1;
        m_ticks = {};
    }
    if (m_top_mass < 1.0)
        m_dimmed = m_factor > 1 ? std::move(drawn.dimmed)
                                : MaskMatrix(!AttentionDisplay::topMass(m_values, m_top_mass).array());
    if (m_dimmed.rows() != m_values.rows() || m_dimmed.cols() != m_values.cols() || !m_dimmed.any())
        m_dimmed = MaskMatrix();
    updateColourValues();
    fillMap();
    d->rect->axis(QCPAxis::atBottom)->setRange(-0.5, std::max<qsizetype>(1, m_values.cols()) - 0.5);
    d->rect->axis(QCPAxis::atLeft)->setRange(-0.5, std::max<qsizetype>(1, m_values.rows()) - 0.5);
    updateRange();
    updateLabels();
    scheduleReplot();
    emit matrixShown();
}

// The drawn cell that holds the selected row and cell.
void HeatmapPlot::outlineSelection()
{
    d->overlay.selected_row = m_selected_row < 0 ? -1 : m_selected_row / m_factor;
    d->overlay.selected_column = m_selected_column < 0 ? -1 : m_selected_column / m_factor;
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

}  // namespace attn
