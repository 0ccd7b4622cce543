#include "ui/shell/LayerChooser.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>

namespace attn {

LayerChooser::LayerChooser(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(tr("Layer"), this);
    m_spin = new QSpinBox(this);
    m_spin->setObjectName(QStringLiteral("LayerSpin"));
    m_spin->setKeyboardTracking(false);
    m_spin->setToolTip(tr("The layer every view shows (Alt+PgUp / Alt+PgDn)"));
    label->setBuddy(m_spin);
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("LayerSlider"));
    m_slider->setTickPosition(QSlider::TicksBelow);
    m_slider->setPageStep(1);
    m_slider->setToolTip(m_spin->toolTip());
    m_slider->setMinimumWidth(160);
    m_count = new QLabel(this);
    m_count->setStyleSheet(QStringLiteral("color: #606060;"));
    layout->addWidget(label);
    layout->addWidget(m_spin);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_count);
    connect(m_spin, &QSpinBox::valueChanged, this, &LayerChooser::choose);
    connect(m_slider, &QSlider::valueChanged, this, &LayerChooser::choose);
    setLayerCount(1);
}

void LayerChooser::setLayerCount(int layers)
{
    m_updating = true;
    const int last = std::max(0, layers - 1);
    m_spin->setRange(0, last);
    m_slider->setRange(0, last);
    m_count->setText(tr("of %1 (0 to %2)").arg(std::max(1, layers)).arg(last));
    m_updating = false;
}

int LayerChooser::layerCount() const
{
    return m_spin->maximum() + 1;
}

void LayerChooser::setLayer(int layer)
{
    m_updating = true;
    m_spin->setValue(layer);
    m_slider->setValue(layer);
    m_updating = false;
}

int LayerChooser::layer() const
{
    return m_spin->value();
}

void LayerChooser::choose(int layer)
{
    if (m_updating)
        return;
    setLayer(layer);  // the other control follows
    emit layerChosen(layer);
}

}  // namespace attn
