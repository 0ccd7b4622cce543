#pragma once

#include "ui/views/ViewPage.h"

#include "core/model/ModelConfig.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace attn {

struct AttentionResult;
class ModelChainView;
class ShapeDiagramView;

// The shape diagram with its batch-size setting, ready to dock beside the heatmaps. With a
// whole model (setModelConfig) it shows the model's chain of blocks instead; a click on its
// attention block opens the single-layer diagram of the result (the selected layer), and
// "Whole model" goes back.
class ShapesPanel : public QWidget, public ViewPage {
    Q_OBJECT
public:
    explicit ShapesPanel(QWidget* parent = nullptr);

    // ViewPage: the tab as the window and Export image see it.
    void showResult(const ViewInput& input) override;
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    ShapeDiagramView* view() const { return m_view; }
    ModelChainView* modelView() const { return m_chain; }
    bool showsModelChain() const;  // the whole model's chain is on screen (not the single layer)
    QSpinBox* batchSpinBox() const { return m_batch; }
    int batch() const;

public slots:
    void setResult(std::shared_ptr<const AttentionResult> result);
    void setHead(int head);  // the selected head, highlighted in the split tensors
    void setBatch(int batch);
    // A whole model's config (copied): its chain is shown; nullptr: back to the single-layer diagram.
    void setModelConfig(const attn::ModelConfig* config);
    void showModelChain(bool chain);  // with a model: the chain, or the selected layer's attention

signals:
    void batchChanged(int batch);

private:
    ShapeDiagramView* m_view = nullptr;
    ModelChainView* m_chain = nullptr;
    QStackedWidget* m_pages = nullptr;
    QSpinBox* m_batch = nullptr;
    QLabel* m_batch_label = nullptr;
    QPushButton* m_back = nullptr;
    std::optional<ModelConfig> m_model;
    int m_seq_len = 0;
};

}  // namespace attn
