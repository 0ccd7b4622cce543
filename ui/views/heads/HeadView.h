#pragma once

#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/views/ViewPage.h"
#include "ui/workers/LatestJob.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QSpinBox;
class QToolButton;

namespace attn {

struct AttentionResult;

// One head large: token labels on both axes, a colour bar, the numbers in the cells when they
// are readable, masked cells hatched, and the value under the mouse in words
// ("query 'it' → key 'cat': 0.412"). Zooms and pans down to single cells (HeatmapPlot), the
// title saying which queries and keys it shows; a picture of it shows the same window.
struct HeatmapData;

class HeadView : public QWidget, public ViewPage {
    Q_OBJECT
public:
    explicit HeadView(QWidget* parent = nullptr);

    // ViewPage: the tab as the window and Export image see it.
    void showResult(const ViewInput& input) override;
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    void setResult(std::shared_ptr<const AttentionResult> result);
    void setColorMap(ColorMaps::Map map);
    void setHead(int head);
    void setColorScale(ColorScale scale);
    ColorScale colorScale() const { return m_scale; }
    void setTopMass(double fraction);  // as HeadsGrid::setTopMass
    double topMass() const { return m_top_mass; }
    void setReduction(CellReduction how);  // as HeadsGrid::setReduction
    // A long input's percentile is in the result now (HeatmapData::computePercentile): the colour
    // range of the percentile scale from it.
    void percentileArrived();
    QComboBox* colorScaleBox() const { return m_scale_box; }
    int head() const { return m_head; }
    HeatmapPlot* plot() const { return m_plot; }
    QString hoverText() const;
    QToolButton* wholeButton() const { return m_whole; }  // back to the whole matrix

    // The plot as it looks at `target`'s size, for export.
    void render(QPainter* painter, const QRectF& target);

    static QString describeCell(const QString& query, const QString& key, double value);

    // The outlined selection (query row, key cell or -1), kept across results while it exists.
    int selectedQuery() const { return m_selected_query; }
    int selectedKey() const { return m_selected_key; }

public slots:
    // Outlines the query's row (key -1) or one cell; query -1 clears. Never emits cellSelected.
    void highlightCell(int query, int key = -1);

signals:
    void headChanged(int head);
    void colorScaleChanged(attn::ColorScale scale);
    void cellHovered(int query, int key);  // -1, -1 when the mouse leaves
    // The user clicked a cell: this head, that query row and key column (also outlined here).
    void cellSelected(int head, int query, int key);

private:
    void refresh();
    void applyColorRange(const HeatmapData& data);
    void updateTitle();

    std::shared_ptr<const AttentionResult> m_result;
    HeatmapPlot* m_plot = nullptr;
    QSpinBox* m_head_box = nullptr;
    QLabel* m_of_label = nullptr;
    QLabel* m_hover = nullptr;
    QComboBox* m_scale_box = nullptr;
    QToolButton* m_whole = nullptr;
    ColorScale m_scale = ColorScale::WithoutOneKeyRows;
    double m_top_mass = 1.0;
    int m_head = 0;
    int m_selected_query = -1;
    int m_selected_key = -1;
    // A long input's head that is not kept: recomputed and reduced on a worker; the newest wins.
    LatestJob m_recompute_job{this};  // a long input's head that was not kept, reduced on a worker
};

}  // namespace attn
