#pragma once

#include "core/lens/AblationScan.h"

#include <QPainter>
#include <QString>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace attn {

// Draws an ablation scan: for every head (layer x head), how much the metric moves when that head
// alone is ablated (the ablated run's metric minus the plain run's), on a diverging colour map
// centred on 0 with its colour bar, under a title naming the metric and the ablation, and the
// line "plain run: X". Heads ablated in the window's run are crossed out (AblatedHeads), and the
// title says how many. Without a result it draws a neutral message. The same painter draws the
// window's tab and --view ablation's PNG, SVG and PDF.
class AblationPainter {
public:
    // `metric`: what is measured, as a person reads it ("logit(␣Paris) at position 7 ‘of’").
    void setResult(std::shared_ptr<const AblationScanResult> result, const QString& metric);
    void setMessage(const QString& message);  // no result: why (drawn in place of the picture)
    // The heads ablated in the window's run (layer, head): marked, and counted in the title.
    void setAblated(std::vector<std::pair<int, int>> heads) { m_ablated = std::move(heads); }
    const std::shared_ptr<const AblationScanResult>& result() const { return m_result; }
    const QString& message() const { return m_message; }
    const QString& metric() const { return m_metric; }
    QString title() const;
    // A line under the title while a scan runs ("scanning… 40 of 144 heads"); empty: none.
    void setProgressNote(const QString& note) { m_progress = note; }

    // The largest |effect|: the colour scale runs from -it to +it.
    static double effectScale(const AblationScanResult& result);

    void paint(QPainter& painter, const QRectF& target) const;
    // The head (layer, head) under `point` of a picture drawn into `target`, if any.
    std::optional<std::pair<int, int>> headAt(const QRectF& target, const QPointF& point) const;
    // Where head (layer, head) is drawn in `target` (tests click it).
    QRectF cellRect(const QRectF& target, int layer, int head) const;

private:
    struct Layout {
        QRectF title;
        QRectF plain;
        QRectF heatmap;  // the cells only
        QRectF colour_bar;
        double cell_width = 0;
        double cell_height = 0;
    };
    Layout layout(const QRectF& target) const;
    void paintHeatmap(QPainter& painter, const Layout& layout) const;
    void paintColourBar(QPainter& painter, const QRectF& rect) const;

    std::shared_ptr<const AblationScanResult> m_result;
    QString m_metric;
    QString m_message;
    QString m_progress;
    std::vector<std::pair<int, int>> m_ablated;
};

}  // namespace attn
