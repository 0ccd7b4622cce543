#pragma once

#include <QWidget>

#include <memory>

class QLabel;
class QSpinBox;

namespace attn {

struct AttentionResult;
class ShapeDiagramView;

// The shape diagram with its batch-size setting, ready to dock beside the heatmaps.
class ShapesPanel : public QWidget {
    Q_OBJECT
public:
    explicit ShapesPanel(QWidget* parent = nullptr);

    ShapeDiagramView* view() const { return m_view; }
    QSpinBox* batchSpinBox() const { return m_batch; }
    int batch() const;

public slots:
    void setResult(std::shared_ptr<const AttentionResult> result);
    void setHead(int head);  // the selected head, highlighted in the split tensors
    void setBatch(int batch);

signals:
    void batchChanged(int batch);

private:
    ShapeDiagramView* m_view = nullptr;
    QSpinBox* m_batch = nullptr;
};

}  // namespace attn
