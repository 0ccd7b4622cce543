#include "ui/views/shapes/ShapesPanel.h"

#include "ui/views/shapes/ShapeDiagramView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSpinBox>
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
    bar->addWidget(new QLabel(tr("Batch size B"), this));
    bar->addWidget(m_batch);
    bar->addSpacing(16);
    auto* hint = new QLabel(tr("Hover a box for its formula, shape, parameters and multiply-adds."), this);
    hint->setStyleSheet(QStringLiteral("color: #5f6b78"));
    bar->addWidget(hint);
    bar->addStretch(1);
    layout->addLayout(bar);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_view = new ShapeDiagramView(scroll);
    scroll->setWidget(m_view);
    layout->addWidget(scroll, 1);

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
    m_view->setResult(std::move(result));
}

void ShapesPanel::setHead(int head)
{
    m_view->setHead(head);
}

void ShapesPanel::setBatch(int batch)
{
    m_batch->setValue(batch);
}

}  // namespace attn
