#include "ui/views/shapes/ShapesPanel.h"

#include "core/pipeline/AttentionResult.h"
#include "ui/views/shapes/ModelChainView.h"
#include "ui/views/shapes/ShapeDiagramPainter.h"
#include "ui/views/shapes/ShapeDiagramView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace attn {

ShapesPanel::ShapesPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(8, 6, 8, 6);
    m_batch = new QSpinBox(this);
    m_batch->setRange(1, 65536);
    m_batch->setValue(1);
    m_batch->setToolTip(tr("Batch size B drawn in the diagram; the numbers do not depend on it"));
    m_back = new QPushButton(tr("← Whole model"), this);
    m_back->setToolTip(tr("Back to the chain of every block of the model"));
    m_back->hide();
    bar->addWidget(m_back);
    m_batch_label = new QLabel(tr("Batch size B"), this);
    bar->addWidget(m_batch_label);
    bar->addWidget(m_batch);
    bar->addSpacing(16);
    auto* hint = new QLabel(tr("Hover a box for its formula, shape, parameters and multiply-adds."), this);
    hint->setStyleSheet(QStringLiteral("color: #5f6b78"));
    bar->addWidget(hint);
    bar->addStretch(1);
    layout->addLayout(bar);

    m_pages = new QStackedWidget(this);
    auto* scroll = new QScrollArea(m_pages);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_view = new ShapeDiagramView(scroll);
    scroll->setWidget(m_view);
    m_pages->addWidget(scroll);
    auto* chain_scroll = new QScrollArea(m_pages);
    chain_scroll->setWidgetResizable(true);
    chain_scroll->setFrameShape(QFrame::NoFrame);
    m_chain = new ModelChainView(chain_scroll);
    chain_scroll->setWidget(m_chain);
    m_pages->addWidget(chain_scroll);
    layout->addWidget(m_pages, 1);

    connect(m_chain, &ModelChainView::attentionActivated, this, [this] { showModelChain(false); });
    connect(m_back, &QPushButton::clicked, this, [this] { showModelChain(true); });

    connect(m_batch, &QSpinBox::valueChanged, this, [this](int batch) {
        m_view->setBatch(batch);
        emit batchChanged(batch);
    });
}

int ShapesPanel::batch() const
{
    return m_batch->value();
}

void ShapesPanel::setResult(std::shared_ptr<const AttentionResult> result)
{
    const int seq_len = result ? result->seqLen() : 0;
    m_view->setResult(std::move(result));
    if (m_model && seq_len != m_seq_len)
        m_chain->setModel(*m_model, seq_len);
    m_seq_len = seq_len;
}

void ShapesPanel::setModelConfig(const ModelConfig* config)
{
    if (config) {
        m_model = *config;
        m_chain->setModel(*config, m_seq_len);
    } else {
        m_model.reset();
        m_chain->clearModel();
    }
    showModelChain(config != nullptr);
}

bool ShapesPanel::showsModelChain() const
{
    return m_model && m_pages->currentWidget() != m_pages->widget(0);
}

void ShapesPanel::showModelChain(bool chain)
{
    chain = chain && m_model;
    m_pages->setCurrentIndex(chain ? 1 : 0);
    m_back->setVisible(m_model && !chain);
    m_batch_label->setVisible(!chain);
    m_batch->setVisible(!chain);
}

void ShapesPanel::setHead(int head)
{
    m_view->setHead(head);
}

void ShapesPanel::setBatch(int batch)
{
    m_batch->setValue(batch);
}

void ShapesPanel::showResult(const ViewInput& input)
{
    setResult(input.computed);  // the shapes as computed: hidden keys change none
}

void ShapesPanel::renderPicture(QPainter* painter, const QRectF& target)
{
    if (showsModelChain()) {
        if (const ModelChainPainter* chain = modelView()->chain())
            chain->paint(*painter, target);
    } else if (const ShapeDiagramPainter* diagram = view()->diagram()) {
        diagram->paint(*painter, target);
    }
}

QSize ShapesPanel::pictureSize() const
{
    return showsModelChain() ? modelView()->size() : view()->size();
}

QString ShapesPanel::exportName() const
{
    return QStringLiteral("attention-shapes.png");
}

}  // namespace attn
