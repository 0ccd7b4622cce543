#include "ui/views/compare/HeadSimilarityView.h"

#include "core/analysis/HeadMetrics.h"
#include "ui/heatmap/HeatmapPlot.h"

#include <QStringList>
#include <QVBoxLayout>

#include <numbers>
#include <utility>

namespace attn {

HeadSimilarityView::HeadSimilarityView(QWidget* parent) : QWidget(parent)
{
    m_plot = new HeatmapPlot(this);
    m_plot->setColorMap(ColorMaps::Map::Magma);
    m_plot->setColorBarVisible(true);
    // Length variants, longest first (U+009C between them): the first that fits is shown.
    m_plot->setColorBarLabel(tr("JS divergence (0 = same)\u009CJS divergence\u009CJSD"));
    m_plot->setTitle(
        tr("How differently the heads attend (similar heads together)\u009C"
           "How differently the heads attend\u009CHead similarity"));
    m_plot->setToolTip(
        tr("Mean over queries of the Jensen\u2013Shannon divergence between two heads' rows.\n"
           "Click a cell to compare those two heads."));
    setMinimumSize(240, 160);  // a splitter pane never squeezes the map below a readable size
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    connect(m_plot, &HeatmapPlot::cellClicked, this, [this](int row, int column) {
        if (row >= 0 && column >= 0 && size_t(row) < m_order.size() && size_t(column) < m_order.size())
            emit headsPicked(m_order[size_t(row)], m_order[size_t(column)]);
    });
}

void HeadSimilarityView::setHeads(const std::vector<Matrix>& heads)
{
    setDivergence(similarityMatrix(heads));
}

void HeadSimilarityView::setDivergence(MatrixD divergence)
{
    m_divergence = std::move(divergence);
    m_order = similarityOrder(m_divergence);
    const int n = int(m_order.size());
    Matrix ordered(n, n);  // (num_heads, num_heads) in display order
    QStringList labels;
    for (int r = 0; r < n; ++r) {
        labels << tr("h%1").arg(m_order[size_t(r)]);
        for (int c = 0; c < n; ++c)
            ordered(r, c) = float(m_divergence(m_order[size_t(r)], m_order[size_t(c)]));
    }
    m_plot->setMatrix(ordered, labels, labels);
    // 0 .. the largest divergence present: random heads differ by little, and a fixed ln 2 would
    // paint them all one colour.
    const double high = n > 0 ? m_divergence.maxCoeff() : 0.0;
    m_plot->setValueRange(0.0, high > 0.0 ? high : std::numbers::ln2);
}

void HeadSimilarityView::render(QPainter* painter, const QRectF& target)
{
    m_plot->render(painter, target);
}

}  // namespace attn
