#pragma once

// Steps shared by the zoom tests: a 2,000-token causal result (its heads drawn reduced), waiting
// for a plot's reductions, and the mouse wheel over a cell. Reductions run on the views' workers
// (the view is on screen): the tests wait for the pool and deliver its results, never for a time.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/workers/ViewWorkers.h"

#include <QApplication>
#include <QStringList>
#include <QThreadPool>
#include <QWheelEvent>

#include <memory>

namespace attn::zoom {

inline constexpr int kTokens = 2000;

inline std::shared_ptr<const AttentionResult> longResult()
{
    QStringList words;
    for (int i = 0; i < kTokens; ++i)
        words.append(QStringLiteral("w%1").arg(i));
    RunSettings config;
    config.d_model = 8;
    config.num_heads = 2;
    config.causal = true;  // masked cells too
    auto computed = AttentionPipeline::run(config, words.join(u' '), TraceDetail::Probabilities);
    return computed ? std::make_shared<const AttentionResult>(std::move(computed).value()) : nullptr;
}

// Until no reduction runs or waits: the pool's jobs end, their results are delivered.
inline void settle(HeatmapPlot* plot)
{
    do {
        viewWorkers().waitForDone();
        QCoreApplication::processEvents();
    } while (plot->reductionPending());
    plot->replotNow();  // lays the plot out: positions below are those of the picture on screen
}

// The widget QCustomPlot draws in, which gets the mouse.
inline QWidget* canvas(HeatmapPlot* plot)
{
    return plot->childAt(plot->rect().center());
}

inline void wheel(HeatmapPlot* plot, QPointF at, int delta)
{
    QWheelEvent event(at, plot->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(canvas(plot), &event);
}

inline QPointF centreOf(HeatmapPlot* plot, int row, int column)
{
    return plot->positionOf(row + 0.5, column + 0.5);
}

}  // namespace attn::zoom
