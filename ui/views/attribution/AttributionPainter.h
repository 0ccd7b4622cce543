#pragma once

#include "core/lens/LogitAttribution.h"

#include <QPainter>
#include <QString>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace attn {

// Draws a direct logit attribution: the L x H heads' contributions as a heatmap (a diverging
// colour map centred on 0, with its colour bar) beside bars for the embeddings, each attention
// output bias, each MLP and the final bias, under the line "parts sum to X; the model's logit
// difference is Y". Without a result it draws a neutral message saying why. The same painter
// draws the window's Attribution tab and --view attribution's PNG, SVG and PDF.
class AttributionPainter {
public:
    // `metric`: what is attributed, as a person reads it ("logit(␣Paris) − logit(␣Rome) at 7 ‘of’").
    void setResult(std::shared_ptr<const AttributionResult> result, const QString& metric);
    void setMessage(const QString& message);  // no result: why (drawn in place of the picture)
    const std::shared_ptr<const AttributionResult>& result() const { return m_result; }
    const QString& message() const { return m_message; }
    const QString& metric() const { return m_metric; }
    void setUpdating(bool updating) { m_updating = updating; }
    // The heads ablated in the run attributed (layer, head): crossed out, and counted in the title.
    void setAblated(std::vector<std::pair<int, int>> heads) { m_ablated = std::move(heads); }

    // "logit(␣Paris) − logit(␣Rome) at position 7 ‘of’": the metric, its tokens and the
    // position's token as a person reads them (foil empty: none).
    static QString metricText(const QString& target, const QString& foil, int position, const QString& at);
    // "parts sum to X; the model's logit difference is Y" (or "...the model's logit is Y" without a foil).
    static QString sumLine(const AttributionResult& result);
    // The largest |contribution| of a head: the colour scale runs from -it to +it.
    static double headScale(const AttributionResult& result);

    void paint(QPainter& painter, const QRectF& target) const;
    // The head (layer, head) under `point` of a picture drawn into `target`, if any.
    std::optional<std::pair<int, int>> headAt(const QRectF& target, const QPointF& point) const;

private:
    struct Layout {
        QRectF title;
        QRectF sum;
        QRectF heatmap;  // the cells only
        QRectF colour_bar;
        QRectF bars;  // the bar chart, its labels included
        double cell_width = 0;
        double cell_height = 0;
    };
    Layout layout(const QRectF& target) const;
    void paintHeatmap(QPainter& painter, const Layout& layout) const;
    void paintColourBar(QPainter& painter, const QRectF& rect) const;
    void paintBars(QPainter& painter, const QRectF& rect) const;

    std::shared_ptr<const AttributionResult> m_result;
    QString m_metric;
    QString m_message;
    bool m_updating = false;
    std::vector<std::pair<int, int>> m_ablated;
};

}  // namespace attn
