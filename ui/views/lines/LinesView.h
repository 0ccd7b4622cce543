#pragma once

#include "ui/views/ViewPage.h"
#include "ui/views/lines/LinesCanvas.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QHBoxLayout;

namespace attn {

struct AttentionResult;

// The lines view with its controls: a head chooser ("All heads" or one head) and, for all heads,
// one coloured toggle per head. The picture itself is the LinesCanvas.
class LinesView : public QWidget, public ViewPage {
    Q_OBJECT
public:
    explicit LinesView(QWidget* parent = nullptr);

    // ViewPage: the tab as the window and Export image see it.
    void showResult(const ViewInput& input) override;
    void computeNow() override;
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    LinesCanvas* canvas() const { return m_canvas; }
    QComboBox* headChooser() const { return m_head_chooser; }
    QCheckBox* headToggle(int head) const;  // nullptr outside 0..num_heads-1

public slots:
    void setResult(std::shared_ptr<const attn::AttentionResult> result);
    void setHead(int head);  // LinesCanvas::kAllHeads or a head
    void setTopMass(double fraction) { m_canvas->setTopMass(fraction); }

signals:
    void headChanged(int head);

private:
    void rebuildControls(int num_heads);

    LinesCanvas* m_canvas = nullptr;
    QComboBox* m_head_chooser = nullptr;
    QWidget* m_toggle_bar = nullptr;
    QHBoxLayout* m_toggle_layout = nullptr;
    std::vector<QCheckBox*> m_toggles;
};

}  // namespace attn
