#pragma once

#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeadAggregate.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/heatmap/KvGroupMarks.h"
#include "ui/views/ViewPage.h"
#include "ui/workers/LatestJob.h"

#include <QList>
#include <QWidget>

#include <memory>

class QComboBox;

namespace attn {

struct AttentionResult;
class ColorBar;

// Every head of a result as a small heatmap (keys along x, queries along y), one shared colour
// scale with one colour bar, the head number on each. A click on a head activates it.
// The same layout code places the widgets on screen and draws an exported picture.
class HeadsGrid : public QWidget, public ViewPage {
    Q_OBJECT
public:
    explicit HeadsGrid(QWidget* parent = nullptr);

    // ViewPage: the tab as the window and Export image see it.
    void showResult(const ViewInput& input) override;
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    void setResult(std::shared_ptr<const AttentionResult> result);
    void setColorMap(ColorMaps::Map map);
    void setCurrentHead(int head);  // drawn with a frame
    void setColorScale(ColorScale scale);
    // A long input's percentile is in the result now (HeatmapData::computePercentile): the
    // percentile scale's range from it.
    void percentileArrived();
    ColorScale colorScale() const { return m_scale; }
    // exBERT's "top X %": per query row the strongest keys up to this fraction of the row's
    // weight are drawn, the others dimmed; 1 draws every key as it is.
    void setTopMass(double fraction);
    double topMass() const { return m_top_mass; }
    // What a reduced pixel of every head shows (HeatmapPlot::setReduction); redraws the heads.
    void setReduction(CellReduction how);
    CellReduction reduction() const { return m_reduction; }
    // An extra "head" after the last: the mean or maximum over the heads (None: no extra head).
    void setAggregate(HeadAggregate aggregate);
    HeadAggregate aggregate() const { return m_aggregate; }
    HeatmapPlot* aggregatePlot() const;  // nullptr without one
    QComboBox* colorScaleBox() const { return m_scale_box; }

    int headCount() const { return int(m_plots.size()); }
    HeatmapPlot* plot(int head) const { return m_plots.value(head); }
    ColorBar* colorBar() const { return m_color_bar; }
    std::shared_ptr<const AttentionResult> result() const { return m_result; }
    QString caption() const;  // the header line: heads, tokens, mask, sizes, weights
    // The header's shorter forms for a narrow window, longest first, separated by U+009C: each
    // keeps the heads, the tokens and the mask ("· causal").
    QString shortCaptions() const;

    // Draws the grid as it looks at `target`'s size (used by export and the command line).
    void render(QPainter* painter, const QRectF& target);

signals:
    void headActivated(int head);
    void cellActivated(int head, int query, int key);              // the click that activated the head
    void cellHovered(int head, int query, int key, double value);  // head -1 when the mouse leaves
    void replotted();  // every head has been redrawn since the last setResult
    void colorScaleChanged(attn::ColorScale scale);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    struct Geometry {
        QRectF caption;
        QList<QRectF> heads;
        QRectF color_bar;
    };
    Geometry layoutFor(const QSizeF& size) const;
    KvGroupMarks groupMarks() const;  // the result's grouped-query heads
    void relayout();
    void applyColorScale();

    std::shared_ptr<const AttentionResult> m_result;
    QList<HeatmapPlot*> m_plots;
    ColorBar* m_color_bar = nullptr;
    QComboBox* m_scale_box = nullptr;
    ColorScale m_scale = ColorScale::WithoutOneKeyRows;
    double m_top_mass = 1.0;
    CellReduction m_reduction = CellReduction::Max;
    HeadAggregate m_aggregate = HeadAggregate::None;
    void updatePlots();
    // A long input's heads that are not in its pictures (dimmed, hidden keys, the aggregate):
    // recomputed one at a time on a worker and reduced there; the newest request wins.
    void reduceHeadsOnWorker(BlockShape blocks);
    LatestJob m_reduce_job{this};  // a long input's heads, reduced on a worker one by one
    HeatmapData m_data;
    ColorMaps::Map m_map = ColorMaps::Map::Viridis;
    int m_current = -1;
    int m_pending_replots = 0;
};

}  // namespace attn
