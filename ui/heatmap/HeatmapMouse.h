#pragma once

#include <QObject>
#include <QPoint>

class QCPAxisRect;
class QCustomPlot;

namespace attn {

class HeatmapPlot;

// What the mouse and keys do on a heatmap: hovering and clicking report cells (the plot's
// cellHovered, hoverLeft, cellClicked); on a zoomable plot the wheel zooms about the cursor,
// a drag pans (a click that does not move still clicks a cell), a double-click resets and the
// arrow keys pan (Shift: one cell). Watches the plot's QCustomPlot.
class HeatmapMouse : public QObject {
public:
    HeatmapMouse(HeatmapPlot* plot, QCustomPlot* surface, QCPAxisRect* rect);
    void updateCursor();  // an open hand over a zoomed plot, closed while dragging

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    HeatmapPlot* m_plot;
    QCustomPlot* m_surface;
    QCPAxisRect* m_rect;
    struct Drag {
        bool pressed = false;
        bool moved = false;
        QPoint start;  // where the last move ended
    } m_drag;
};

}  // namespace attn
