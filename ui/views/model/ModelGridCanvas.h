#pragma once

#include "core/analysis/HeadMetrics.h"
#include "core/analysis/HeadScores.h"
#include "ui/views/model/ModelGridPainter.h"

#include <QWidget>

#include <optional>
#include <vector>

namespace attn {

// The grid of every layer x head (ModelGridPainter) as a widget: a click, or Enter on the head
// with keyboard focus (arrow keys move it), activates a head; hovering shows the head's layer,
// number, metrics and scores (computed from the compact maps when first asked for, then kept).
class ModelGridCanvas : public QWidget {
    Q_OBJECT
public:
    explicit ModelGridCanvas(QWidget* parent = nullptr);

    ModelGridPainter& gridPainter() { return m_painter; }
    const ModelGridPainter& gridPainter() const { return m_painter; }
    void setRun(std::shared_ptr<const ModelRun> run, const QString& caption);
    void setTokens(const QStringList& tokens) { m_tokens = tokens; }  // for the hover text

    // The (layer, head) framed; -1, -1 for none. Does not emit.
    void setCurrent(int layer, int head);
    HeadMetric metric(int layer, int head) const;
    void setMetrics(const std::vector<HeadMetric>& metrics);  // every head's, computed elsewhere (L * H)
    // The head's scores (HeadScores: the frames', the table's and --json's "previous"), computed
    // when first asked for unless given.
    HeadScore score(int layer, int head) const;
    void setScores(const std::vector<HeadScore>& scores);
    // The hover text: the head and its metrics, and with a cell (query, key) its weight and tokens.
    QString describeHead(int layer, int head, int query = -1, int key = -1) const;
    // Where a head is drawn now, e.g. to click it in a test.
    QRect thumbnailRect(int layer, int head) const;

    QSize sizeHint() const override { return {900, 600}; }
    QSize minimumSizeHint() const override { return {240, 160}; }

signals:
    void headActivated(int layer, int head);
    void currentChanged(int layer, int head);
    void headHovered(int layer, int head);  // -1, -1 when the mouse leaves the heads
    // A right click (or the menu key) on a head: the window offers to ablate or restore it there.
    void headMenuRequested(int layer, int head, QPoint global_pos);
    void painted();  // a repaint has finished (benchmarks wait for it)

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;

private:
    void moveCurrent(int layer, int head);

    ModelGridPainter m_painter;
    mutable std::vector<std::optional<HeadMetric>> m_metrics;  // (L * H), filled when asked for
    mutable std::vector<std::optional<HeadScore>> m_scores;    // (L * H), likewise
    QStringList m_tokens;
    int m_hovered = -1;
    int m_hovered_cell = -1;      // query * T + key under the mouse
    QString m_hovered_aggregate;  // what the aggregate thumbnail under the mouse shows
};

}  // namespace attn
