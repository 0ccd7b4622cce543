#pragma once

#include "core/base/Tensor.h"

#include <QWidget>

#include <vector>

class QPainter;

namespace attn {

class HeatmapPlot;

// The head x head Jensen-Shannon divergence matrix as a heatmap, rows and columns in
// similarityOrder so that similar heads sit together. Clicking a cell picks that pair of heads.
class HeadSimilarityView : public QWidget {
    Q_OBJECT
public:
    explicit HeadSimilarityView(QWidget* parent = nullptr);

    // heads: num_heads x (query_len, key_len) attention weights.
    void setHeads(const std::vector<Matrix>& heads);
    // divergence: (num_heads, num_heads), computed elsewhere (similarityMatrix, HeadTables).
    void setDivergence(MatrixD divergence);
    const MatrixD& divergence() const { return m_divergence; }  // in head order
    const std::vector<int>& order() const { return m_order; }   // row/column r shows head order()[r]
    HeatmapPlot* plot() const { return m_plot; }
    void render(QPainter* painter, const QRectF& target);
    QSize sizeHint() const override { return {420, 320}; }  // a square map with its colour bar and title

signals:
    void headsPicked(int head_a, int head_b);

private:
    HeatmapPlot* m_plot = nullptr;
    MatrixD m_divergence;  // (num_heads, num_heads)
    std::vector<int> m_order;
};

}  // namespace attn
