#pragma once

#include "core/analysis/QueryKeySpace.h"
#include "core/pipeline/AttentionResult.h"

#include <QFontMetricsF>
#include <QPainter>

#include <memory>
#include <optional>
#include <vector>

namespace attn {

// One head's queries and keys as one scatter in 2-D (QueryKeySpace: AttentionViz's normalisation,
// then the joint set's two principal axes): queries as filled discs, keys as open squares, each
// labelled with its token where the label overlaps no other; a query near a key attends to it. Draws the window's Q-K tab and
// --view qk's PNG, SVG and PDF.
class QueryKeyPainter {
public:
    void setResult(std::shared_ptr<const AttentionResult> result);
    void setHead(int head);
    // Both at once: one projection instead of two.
    void setResultAndHead(std::shared_ptr<const AttentionResult> result, int head);
    void setCaption(const QString& caption) { m_caption = caption; }

    int head() const { return m_head; }
    const std::shared_ptr<const AttentionResult>& result() const { return m_result; }
    const QueryKeyPoints& points() const { return m_points; }
    const QString& problem() const { return m_problem; }  // why nothing is drawn, if so

    void paint(QPainter& painter, const QRectF& target) const;
    // What lies under `position` in a picture painted into `target`: "query 3 'cat'" or "key 5 'the'".
    QString describe(const QPointF& position, const QRectF& target) const;
    // Where a query's (or key's) mark is drawn in a picture painted into `target`.
    QPointF position(int index, bool key, const QRectF& target) const;

    // A token's label beside its mark: the query's or key's index, and where the text goes.
    struct PlacedLabel {
        int index;
        bool key;
        QRectF rect;
    };
    // The labels of a picture painted into `target`: each beside its mark where it overlaps no
    // other label and covers no mark, the points farthest from the centre (the least crowded)
    // first; a label that fits nowhere is left out, and the title says how many are shown.
    std::vector<PlacedLabel> labels(const QRectF& target) const;

private:
    struct Frame {
        QRectF plot;
        double x0, y0, scale;  // picture = plot centre + (point - (x0, y0)) * scale, y upwards
        QPointF map(double x, double y) const;
    };
    void recompute();
    std::optional<Frame> frame(const QRectF& target, double line) const;
    std::vector<PlacedLabel> placeLabels(const Frame& frame, const QFontMetricsF& metrics, double radius) const;
    bool isHiddenKey(int index) const;             // hidden in the heatmaps: drawn grey and dashed
    QString labelText(int index, bool key) const;  // the token, struck through for a hidden key
    QString token(int index, bool key) const;

    std::shared_ptr<const AttentionResult> m_result;
    int m_head = 0;
    QString m_caption;
    QueryKeyPoints m_points;
    QString m_problem;
};

}  // namespace attn
