#pragma once

#include "core/analysis/CompareData.h"
#include "core/base/Result.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeatmapReduction.h"

#include <QWidget>

#include <memory>
#include <optional>

class QBoxLayout;
class QLabel;
class QPainter;

namespace attn {

class HeatmapPlot;
struct AttentionResult;

// One side of a comparison: a head of a result, and what to call it.
struct CompareSide {
    std::shared_ptr<const AttentionResult> result;
    int head = 0;
    QString settings;  // "" for the window's settings, else what differs ("causal", "seed 3")
};

// The picture of the compare view: head A and head B side by side on one colour scale, and
// A - B on the diverging map centred at 0, with a caption of their divergence and metrics.
// The three plots zoom and pan together (HeatmapPlot::setZoomable): one window of both heads.
// The three heatmaps are HeatmapPlots; paint() lays the same picture out on any QPainter.
class CompareFigure : public QWidget {
    Q_OBJECT
public:
    explicit CompareFigure(QWidget* parent = nullptr);

    // Shows a against b; on an error (a head out of range, inputs of different lengths) nothing
    // changes and the reason is returned.
    Status setComparison(const CompareSide& a, const CompareSide& b);
    // The same in two halves: the numbers (thread-safe, for a worker: a long input's heads are
    // recomputed, about half a second each at 8,192 tokens), then showing them.
    static Result<std::shared_ptr<const HeadComparison>> computeComparison(const CompareSide& a, const CompareSide& b);
    void showComparison(const CompareSide& a, const CompareSide& b, std::shared_ptr<const HeadComparison> comparison);
    // True when computeComparison recomputes a head (a long input's that was not kept).
    static bool recomputesHeads(const CompareSide& a, const CompareSide& b);
    void setColorMap(ColorMaps::Map map);  // of A and B; the difference is always diverging
    // The colour scale A and B share (the windows's one choice); the difference stays linear.
    void setColorScale(ColorScale scale);
    ColorScale colorScale() const { return m_scale; }
    // What a reduced pixel of A, B and A - B shows (HeatmapPlot::setReduction); redraws them.
    void setReduction(CellReduction how);

    const HeadComparison& comparison() const { return *m_comparison; }
    HeatmapPlot* plotA() const { return m_plot_a; }
    HeatmapPlot* plotB() const { return m_plot_b; }
    HeatmapPlot* plotDifference() const { return m_plot_difference; }
    QString caption() const;  // divergence and metrics of A and B, one line each
    // How the plots sit on screen: the three in a row, or (a small window) A and B only, side by
    // side or stacked, whichever draws them larger, with the caption cut to its first line.
    enum class Arrangement { Row, PairSideBySide, PairStacked };
    Arrangement arrangement() const { return m_arrangement; }
    QString header() const;        // the settings of A and the tokens
    QString shownCaption() const;  // the caption as the window shows it at its size
    QString normsNote() const;     // "" unless a side is value-weighted

    void paint(QPainter* painter, const QRectF& target);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

signals:
    // A cell of any of the three heatmaps was hovered: query, key, and the three numbers.
    void cellHovered(int query, int key, double a, double b);

private:
    static QString sideTitle(const QString& letter, const CompareSide& side);
    void showComparison();      // m_comparison of m_a and m_b in the three plots
    void fitPlotsToSize();      // the arrangement, small fonts and margins when the plots are small
    QSize contentSize() const;  // what the scroll area shows of the plots and caption

    HeatmapPlot* m_plot_a = nullptr;
    HeatmapPlot* m_plot_b = nullptr;
    HeatmapPlot* m_plot_difference = nullptr;
    QLabel* m_caption = nullptr;
    QWidget* m_content = nullptr;
    QBoxLayout* m_plots_layout = nullptr;
    Arrangement m_arrangement = Arrangement::Row;
    // Shared with the plots' reductions on worker threads, which keep it alive until they finish.
    std::shared_ptr<const HeadComparison> m_comparison = std::make_shared<const HeadComparison>();
    CompareSide m_a;
    CompareSide m_b;
    ColorScale m_scale = ColorScale::WithoutOneKeyRows;
    void applyColorScale();
};

}  // namespace attn
