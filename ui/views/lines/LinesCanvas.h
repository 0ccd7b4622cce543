#pragma once

#include "ui/views/lines/LineChoice.h"
#include "ui/workers/LatestJob.h"

#include <QColor>
#include <QFont>
#include <QImage>
#include <QRectF>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

class QPainter;

namespace attn {

struct AttentionResult;

// The "lines" picture of attention: the tokens in two columns, queries on the left and keys on the
// right, and a line from query i to key j for every weight A_ij whose opacity and width follow the
// weight (relative to the strongest weight shown, which is opaque; see opacityFor). One head, or all heads overlaid, each in
// its own colour, with heads switched off by setHeadVisible. Hovering a token shows only its lines.
// paint() draws the same picture on any QPainter (widget, PNG, SVG, PDF).
// Keys hidden in the heatmaps (the result's hidden_keys, rows renormalised without them) are
// greyed and struck through like the heatmaps' labels, with no lines; with exBERT's top X %
// (setTopMass, as the heatmaps) only each row's strongest keys that reach that share are drawn.
// Long inputs: beyond kAllLinesCells weights only the strongest kKeysPerQuery keys of each query
// are drawn, each shaded against its query's strongest key, and never more than kMaxLines lines,
// spread over the queries (chooseLines); the title says what is shown.
// On screen those lines are chosen off the GUI thread, so a long input never blocks the window.
class LinesCanvas : public QWidget {
    Q_OBJECT
public:
    enum class Side { None, Query, Key };
    static constexpr int kAllHeads = -1;

    explicit LinesCanvas(QWidget* parent = nullptr);
    ~LinesCanvas() override;

    void setResult(std::shared_ptr<const AttentionResult> result);
    void setHead(int head);  // kAllHeads or 0..num_heads-1
    void setHeadVisible(int head, bool visible);
    void setFocusToken(Side side, int index);  // what hovering sets; Side::None shows every line
    void setTopMass(double fraction);          // 0 < fraction <= 1; 1 draws every row's lines
    double topMass() const { return m_top_mass; }

    int head() const { return m_head; }
    bool isHeadVisible(int head) const;
    Side focusSide() const { return m_focus_side; }
    int focusIndex() const { return m_focus_index; }
    static QColor headColor(int head);  // distinct colours for overlaid heads

    // A line's opacity for weight / strongest weight shown: (w / w_max)^1.5, so that the T^2
    // near-uniform lines of a long sentence fade and the strong ones stand out.
    static double opacityFor(double relative_weight);
    static constexpr float kMinRelativeWeight = LineChoice::kMinRelativeWeight;
    // Up to this many weights (over the heads shown) every line above the threshold is drawn.
    static constexpr std::int64_t kAllLinesCells = 64 * 64 * 4;
    static constexpr int kKeysPerQuery = 3;
    static constexpr int kMaxLines = 8000;

    using Line = LineChoice::Line;
    // The lines to draw (LineChoice::choose).
    static std::vector<Line> chooseLines(const AttentionResult& result, const std::vector<int>& heads,
                                         int keys_per_query, int max_lines, double top_mass = 1.0)
    {
        return LineChoice::choose(result, heads, keys_per_query, max_lines, top_mass);
    }
    static int queriesPerBlock(int queries, int max_lines) { return LineChoice::queriesPerBlock(queries, max_lines); }
    // "strongest 3 keys per query of 2,166, ..." while long inputs are thinned, else empty.
    QString thinningNote() const;
    bool linesPending() const { return m_pending_generation != 0; }  // being chosen or drawn off the GUI thread
    // The lines of the current state, chosen here if a worker has not delivered them (exports).
    void computeNow() { currentLines(true); }

    void paint(QPainter& painter, const QRectF& rect) const;
    // The token drawn at `position` when the picture fills `rect`, or Side::None.
    std::pair<Side, int> tokenAt(const QPointF& position, const QRectF& rect) const;
    // Whether key `key`'s label is greyed and struck through: padded, or hidden in the heatmaps.
    bool isKeyStruck(int key) const;
    // The title above the lines: the head(s) shown and what is left out (thinning, top X %, hidden keys).
    QString title() const;
    // Lines paint() draws now (weights above the visibility threshold, visible heads, focus filter).
    int visibleLineCount() const;

    QSize sizeHint() const override { return {520, 480}; }
    QSize minimumSizeHint() const override { return {240, 160}; }

signals:
    void focusTokenChanged(attn::LinesCanvas::Side side, int index);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    struct Layout;
    Layout layoutFor(const QRectF& rect) const;
    std::vector<int> shownHeads() const;
    static bool passesFocus(Side side, int index, int query, int key);
    // The lines that pass the focus filter, as paint() draws them.
    static void drawLines(QPainter& painter, const Layout& layout, const std::vector<Line>& lines,
                          const std::vector<int>& heads, int head_mode, int num_heads, int num_rows, Side focus_side,
                          int focus_index);
    // paint(); on screen a long input's lines come from m_layer, drawn by the worker.
    void paintPicture(QPainter& painter, const QRectF& rect, bool on_screen) const;
    int keysPerQuery() const;  // 0: all
    // The lines for the current result and heads: computed here (small inputs, exports), or null
    // while a worker chooses them (requestLines).
    const std::vector<Line>* currentLines(bool wait_for_worker) const;
    bool linesReady() const;  // m_lines are those of the current result, heads and top X %
    bool layerReady() const;  // m_layer shows m_lines at the canvas's size
    void requestLines();      // on screen: large inputs are chosen and drawn on a worker thread
    void invalidateLines();

    struct LineSet {
        const AttentionResult* result = nullptr;
        std::vector<int> heads;
        double top_mass = 1.0;
        std::vector<Line> lines;
    };
    mutable std::shared_ptr<const LineSet> m_lines;
    struct LinesLayer {  // the lines of a LineSet alone, on a transparent picture of the canvas
        std::shared_ptr<const LineSet> lines;
        QSizeF size;
        QImage image;
    };
    std::shared_ptr<const LinesLayer> m_layer;
    struct WidestLabel {
        std::weak_ptr<const AttentionResult> result;
        QFont font;
        double width = 0.0;
    };
    mutable WidestLabel m_widest;  // layoutFor's measure of the labels, kept per result and font
    LatestJob m_lines_job{this};   // a new request when the lines change; sizes of them alongside
    quint64 m_pending_generation = 0;
    QSizeF m_pending_size;  // the size the worker draws for

    std::shared_ptr<const AttentionResult> m_result;
    int m_head = 0;
    std::vector<bool> m_visible;  // per head, for kAllHeads
    Side m_focus_side = Side::None;
    int m_focus_index = -1;
    double m_top_mass = 1.0;
};

}  // namespace attn
