#include "ui/views/lines/LinesView.h"

#include "core/pipeline/AttentionResult.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QVBoxLayout>

#include <algorithm>

namespace attn {
namespace {

QIcon swatch(const QColor& color)
{
    QPixmap pixmap(14, 14);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawRoundedRect(QRectF(1, 1, 12, 12), 3, 3);
    return QIcon(pixmap);
}

}  // namespace

LinesView::LinesView(QWidget* parent) : QWidget(parent)
{
    m_canvas = new LinesCanvas(this);
    m_head_chooser = new QComboBox(this);
    m_head_chooser->setToolTip(tr("One head, or all heads overlaid in their own colours"));
    m_head_chooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_toggle_bar = new QWidget(this);
    m_toggle_layout = new QHBoxLayout(m_toggle_bar);
    m_toggle_layout->setContentsMargins(0, 0, 0, 0);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Lines of"), this));
    controls->addWidget(m_head_chooser);
    controls->addWidget(m_toggle_bar);
    controls->addStretch(1);  // the chooser stays next to its label when the toggles are hidden

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(m_canvas, 1);
    auto* hint = new QLabel(tr("Hover a token to see only its lines."), this);
    hint->setEnabled(false);
    layout->addWidget(hint);

    connect(m_head_chooser, &QComboBox::currentIndexChanged, this, [this](int index) {
        const int head = m_head_chooser->itemData(index).toInt();
        m_canvas->setHead(head);
        m_toggle_bar->setVisible(head == LinesCanvas::kAllHeads);
        emit headChanged(head);
    });
    rebuildControls(0);
}

QCheckBox* LinesView::headToggle(int head) const
{
    return head >= 0 && size_t(head) < m_toggles.size() ? m_toggles[size_t(head)] : nullptr;
}

void LinesView::setResult(std::shared_ptr<const AttentionResult> result)
{
    const int heads = result ? result->numHeads() : 0;
    m_canvas->setResult(std::move(result));
    if (heads != int(m_toggles.size()))
        rebuildControls(heads);
}

void LinesView::setHead(int head)
{
    const int index = m_head_chooser->findData(head < 0 ? LinesCanvas::kAllHeads : head);
    if (index >= 0)
        m_head_chooser->setCurrentIndex(index);
}

void LinesView::rebuildControls(int num_heads)
{
    // Keep the chosen head when it still exists; the first result starts on head 0.
    const bool first_result = m_toggles.empty();
    const int previous =
        first_result || !m_head_chooser->currentData().isValid() ? 0 : m_head_chooser->currentData().toInt();
    {
        const QSignalBlocker blocker(m_head_chooser);
        m_head_chooser->clear();
        m_head_chooser->addItem(tr("all heads"), LinesCanvas::kAllHeads);
        for (int h = 0; h < num_heads; ++h)
            m_head_chooser->addItem(swatch(LinesCanvas::headColor(h)), tr("head %1").arg(h), h);
    }
    for (QCheckBox* toggle : m_toggles)
        delete toggle;
    m_toggles.clear();
    for (int h = 0; h < num_heads; ++h) {
        auto* toggle = new QCheckBox(QString::number(h), m_toggle_bar);
        toggle->setIcon(swatch(LinesCanvas::headColor(h)));
        toggle->setChecked(m_canvas->isHeadVisible(h));
        toggle->setToolTip(tr("Show head %1 in the overlay").arg(h));
        connect(toggle, &QCheckBox::toggled, this, [this, h](bool on) { m_canvas->setHeadVisible(h, on); });
        m_toggle_layout->insertWidget(h, toggle);
        m_toggles.push_back(toggle);
    }
    if (m_toggle_layout->count() == num_heads)
        m_toggle_layout->addStretch(1);
    const int index = m_head_chooser->findData(previous < num_heads ? previous : 0);
    m_head_chooser->setCurrentIndex(index >= 0 ? index : 0);
    const int head = m_head_chooser->currentData().toInt();
    m_canvas->setHead(head);
    m_toggle_bar->setVisible(head == LinesCanvas::kAllHeads);
}

void LinesView::showResult(const ViewInput& input)
{
    setResult(input.shown);
    if (canvas()->head() != LinesCanvas::kAllHeads)
        setHead(std::min(input.head, input.computed->numHeads() - 1));
}

void LinesView::computeNow()
{
    canvas()->computeNow();  // a long input's lines, never "finding the strongest keys"
}

void LinesView::renderPicture(QPainter* painter, const QRectF& target)
{
    canvas()->paint(*painter, target);
}

QSize LinesView::pictureSize() const
{
    return canvas()->size();
}

QString LinesView::exportName() const
{
    return QStringLiteral("attention-lines.png");
}

}  // namespace attn
