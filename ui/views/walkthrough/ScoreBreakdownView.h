#pragma once

#include "core/analysis/WalkthroughData.h"

#include <QWidget>

#include <optional>

namespace attn {

// The neuron-level view of one query's raw scores: a small heatmap of q_i · k_j,i (one row per
// key j, one column per dimension i of the head) with each row's score, read from the trace,
// beside it. Red dimensions push the score up, blue ones pull it down.
class ScoreBreakdownView : public QWidget {
    Q_OBJECT
public:
    explicit ScoreBreakdownView(QWidget* parent = nullptr);

    // products: (key_len, head_dim); raw_scores: the query's row of the raw scores, if known;
    // widest_label: the row label widest in this view's font (WidestLabel), -1 to measure them all.
    void setData(const WalkthroughTable& products, std::optional<RowVector> raw_scores, int widest_label = -1);
    void setPrecision(int digits);

    const WalkthroughTable& products() const { return m_products; }
    // Drawing for the widget and for pictures alike; only the rows inside the painter's clip.
    void paint(QPainter& painter, const QRectF& rect) const;
    // The (key, dimension) under a point, or (-1, -1).
    QPoint cellAt(QPointF point) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Geometry {
        QRectF cells;
        double cell_w = 0, cell_h = 0, label_w = 0, score_w = 0, header_h = 0, legend_h = 0;
    };
    Geometry geometry(const QRectF& rect) const;
    void measureLabels();

    WalkthroughTable m_products;
    std::optional<RowVector> m_raw_scores;
    int m_widest_label = -1;
    double m_label_w = 0;  // the widest row label's width, measured once per data and font
    int m_precision = 4;
};

}  // namespace attn
