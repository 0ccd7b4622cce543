#pragma once

#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeatmapPlot.h"

#include <QStringList>

#include <functional>

namespace attn {

struct AttentionResult;

// What every attention view derives from a result once, shared by all of its heads.
struct HeatmapData {
    QStringList labels;      // one per query: the rows (y)
    QStringList key_labels;  // one per key: the columns (x); the same as labels for self-attention
    MaskMatrix mask;         // (query_len, key_len): true where the query may not see the key; empty: none
    bool any_masked = false;
    double high = 1.0;  // the largest weight over all heads: the top of the shared colour scale
    // The largest weight over the rows that see more than one key, and those rows' count.
    double high_without_one_key_rows = 1.0;
    QList<int> one_key_rows;  // rows that see a single key (at most the first few are listed)
    int one_key_row_count = 0;
    // Keys hidden (AttentionResult::hidden_keys): masked above, their labels struck through.
    QList<int> hidden_keys;
    // ColorScale::Percentile: the ColorScales::kPercentile-th percentile of the unmasked weights
    // of every head (computed only when fromResult is asked for that scale).
    double percentile_top = 1.0;
    // A long input whose heads are not all kept: its percentile is computed on a worker (two
    // passes over every head recomputed, AttentionResult::derived, ViewTabs starts it); until it
    // is there the scale is 0 .. the largest weight, and its note says so.
    bool percentile_pending = false;
    // The matrices are value-weighted attention ||A_ij f(x_j)|| (AttentionResult::value_norms):
    // rows do not sum to 1, the linear scales run 0 .. the largest norm and the bar says so.
    bool value_norms = false;

    static HeatmapData fromResult(const AttentionResult& result, ColorScale scale = ColorScale::WithoutOneKeyRows);
    // A long input's percentile (probabilityPercentile of the weights the views show, outside their
    // mask) into result.derived, unless it is there already: false when `cancelled` stopped it.
    // Seconds at 8,192 tokens x 12 heads: for a worker, or for an export that must not wait.
    static bool computePercentile(const AttentionResult& result, const std::function<bool()>& cancelled = {});
    // A long input's result whose percentile is not there yet (computePercentile would compute it).
    static bool percentileMissing(const AttentionResult& result);

    // The top of the colour scale, and what the colour bar says about it ("" when the scale is
    // simply 0 .. the largest weight).
    double top(ColorScale scale) const;
    QString scaleNote(ColorScale scale) const;

    // Everything a plot and its colour bar need for a scale: the value range, how values map to
    // colours, and the note that says which scale it is.
    struct Range {
        double low = 0.0;
        double high = 1.0;
        HeatmapPlot::ColorMapping mapping = HeatmapPlot::ColorMapping::Linear;
        QString note;
    };
    Range range(ColorScale scale) const;
    // Which matrices a view draws, for its title: "weights" or "norms ||A f(x)||".
    static QString kindLabel(bool value_norms);
    // A token label drawn struck through (a hidden key).
    static QString struck(const QString& label);
};

}  // namespace attn
