#pragma once

#include "ui/views/ViewPage.h"
#include "ui/views/qk/QueryKeyPainter.h"
#include "ui/workers/LatestJob.h"

#include <QImage>
#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;

namespace attn {

// The Q-K tab: the selected head's queries and keys in one scatter (QueryKeyPainter), under a bar
// that chooses the head (the window's selected head: headChosen) and, with a model open, the
// layer (layerChosen); hovering a point names its token, its position and whether it is the
// token's query or its key.
// A long input (more than kWorkerPoints queries and keys) is projected and drawn on a worker
// thread: its thousands of labelled marks took a quarter of a second of the GUI thread. Meanwhile
// the last picture stays, marked "computing…"; computeNow() finishes it here (exports, tests).
class QueryKeyView : public QWidget, public ViewPage {
    Q_OBJECT

public:
    static constexpr int kWorkerPoints = 2048;  // T_q + T_k beyond which a worker does the work

    explicit QueryKeyView(QWidget* parent = nullptr);

    // ViewPage: the tab as the window and Export image see it.
    void showResult(const ViewInput& input) override;
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    void setResult(std::shared_ptr<const AttentionResult> result);
    void setHead(int head);
    // The scatter of the current result and head, computed here if a worker has not delivered it.
    void computeNow() override;
    // The last scatter computed: the current one unless isPending().
    const QueryKeyPainter& painter() const { return m_painter; }
    bool isPending() const { return !isCurrent(); }
    QString describeAt(const QPointF& position) const { return m_painter.describe(position, plotArea()); }
    QRectF plotArea() const;  // the scatter's part of the widget, under the bar
    QComboBox* headBox() const { return m_head_box; }
    QSpinBox* layerBox() const { return m_layer_box; }  // shown with a model's layers only

signals:
    void headChosen(int head);
    void layerChosen(int layer);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void buildBar();
    void syncBar();  // the choosers from the result and head
    bool isLarge() const;
    bool isCurrent() const;  // m_painter holds the current result and head
    void changed();
    // On a worker: the projection and its picture at the widget's size, for the current state.
    void requestPicture();

    std::shared_ptr<const AttentionResult> m_result;  // what is asked for
    int m_head = 0;
    QueryKeyPainter m_painter;      // what was computed last
    QImage m_picture;               // m_painter drawn at the widget's size (long inputs), or null
    LatestJob m_picture_job{this};  // a new one for each change of result, head or size
    bool m_requested = false;       // a worker is drawing the current state
    QWidget* m_bar = nullptr;
    QComboBox* m_head_box = nullptr;
    QLabel* m_layer_label = nullptr;
    QSpinBox* m_layer_box = nullptr;
    QString m_hint;  // the hover text away from every point
};

}  // namespace attn
