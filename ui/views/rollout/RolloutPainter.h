#pragma once

#include "core/analysis/AttentionRollout.h"
#include "core/model/ModelRun.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"

#include <QPainter>
#include <QStringList>

#include <memory>
#include <vector>

namespace attn {

// Draws attention rollout (or attention flow): the (T, T) matrix R_l as a heatmap (row i: where what token i holds
// after layer l came from) and, beside it, one query's row as bars over the input tokens. The
// same painter draws the window's Rollout tab and --view rollout's PNG, SVG and PDF.
class RolloutPainter {
public:
    // Recomputes the rollout; an error (e.g. a layer out of range) is kept for error().
    void setRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens);
    void setOptions(const AttentionRollout::Options& options);
    // Attention flow (maximum flows, at most AttentionFlow::kMaxTokens tokens) instead of the
    // rollout; the same fusion and residual weight, after the last layer.
    void setFlow(bool flow);
    bool isFlow() const { return m_flow; }
    void setQuery(int query);  // the row drawn as bars; -1 = the last token (causal) or the first ([CLS])
    void setCaption(const QString& caption) { m_caption = caption; }
    void setColorMap(ColorMaps::Map map) { m_color_map = map; }
    // Linear (0 .. the largest), logarithmic, or clipped at the 99th percentile; per row scales each
    // row to its largest value.
    void setColorScale(ColorScale scale) { m_scale = scale; }
    // Tokens hidden as inputs: their columns set to 0 and each row renormalised over the others,
    // marked in the picture (struck labels, a pale band); positions beyond the input are ignored.
    void setHiddenKeys(const QList<int>& positions) { m_hidden_positions = positions; }

    // Without computeOnPaint (the window), the painter never computes: its owner runs compute() on a
    // worker and hands the outcome to setComputed(); until then the last matrix is drawn, marked as
    // being brought up to date. Exports compute on first use.
    void setComputeOnPaint(bool compute) { m_compute_on_paint = compute; }
    bool isStale() const { return m_stale; }
    struct Job {
        std::shared_ptr<const ModelRun> run;
        AttentionRollout::Options options;
        bool flow = false;
    };
    Job job() const { return {m_run, m_options, m_flow}; }
    static Result<MatrixD> compute(const Job& job);
    void setComputed(Result<MatrixD> outcome);

    const AttentionRollout::Options& options() const { return m_options; }
    int query() const;  // the row drawn as bars, resolved
    // (T, T); empty without a run. Computed when first asked for (or painted), not on each run:
    // a hidden tab costs nothing while the user types.
    const MatrixD& rollout() const
    {
        ensureComputed();
        return m_rollout;
    }
    const QString& error() const
    {
        ensureComputed();
        return m_error;
    }
    bool hasRun() const { return m_run != nullptr; }
    const std::shared_ptr<const ModelRun>& run() const { return m_run; }

    void paint(QPainter& painter, const QRectF& target) const;

private:
    void recompute() { m_stale = true; }
    // The matrix as cells (up to 64 tokens: vector rectangles in exports) or as an image of at most
    // one pixel per device pixel, each showing the largest value under it.
    void paintColourBar(QPainter& painter, const QRectF& bar, double top) const;
    // Returns the value at the top of the colour scale.
    double paintMatrix(QPainter& painter, const QRectF& rect, const MatrixD& shown,
                       const std::vector<bool>& hidden) const;
    QString scaleNote() const;
    void ensureComputed() const;

    std::shared_ptr<const ModelRun> m_run;
    QStringList m_tokens;
    AttentionRollout::Options m_options;
    int m_query = -1;
    bool m_flow = false;
    QString m_caption;
    ColorMaps::Map m_color_map = ColorMaps::Map::Viridis;
    ColorScale m_scale = ColorScale::WithoutOneKeyRows;
    QList<int> m_hidden_positions;
    bool m_compute_on_paint = true;
    mutable MatrixD m_rollout;  // (T, T)
    mutable QString m_error;
    mutable bool m_stale = true;
};

}  // namespace attn
