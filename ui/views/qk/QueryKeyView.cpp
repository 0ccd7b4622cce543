#include "ui/views/qk/QueryKeyView.h"

#include "core/pipeline/AttentionResult.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolTip>

#include <algorithm>

namespace attn {
namespace {

bool isLargeInput(const std::shared_ptr<const AttentionResult>& result)
{
    return result &&
           std::int64_t(result->trace.queryLength()) + result->trace.keyLength() > QueryKeyView::kWorkerPoints;
}

}  // namespace

QueryKeyView::QueryKeyView(QWidget* parent) : QWidget(parent)
{
    m_painter.setResultAndHead(nullptr, 0);  // "No result yet."
    setMouseTracking(true);
    setMinimumSize(320, 240);
    // Shown by event() away from the points (a widget tool tip would hide the points' own).
    m_hint =
        tr("Each token's query (disc) and key (square) of the selected head; a query near a key attends to "
           "it. Hover a point for its token and position.");
    buildBar();
}

void QueryKeyView::buildBar()
{
    m_bar = new QWidget(this);
    m_bar->setAutoFillBackground(true);  // the window's colours, above the white scatter
    auto* layout = new QHBoxLayout(m_bar);
    layout->setContentsMargins(6, 3, 6, 3);
    auto* head_label = new QLabel(tr("Head"), m_bar);
    m_head_box = new QComboBox(m_bar);
    m_head_box->setToolTip(tr("The head whose queries and keys are shown (the window's selected head)"));
    head_label->setBuddy(m_head_box);
    m_layer_label = new QLabel(tr("Layer"), m_bar);
    m_layer_box = new QSpinBox(m_bar);
    m_layer_box->setToolTip(tr("The model's layer (the window's layer)"));
    m_layer_label->setBuddy(m_layer_box);
    auto* hint = new QLabel(tr("Hover a point for its token and position"), m_bar);
    hint->setStyleSheet(QStringLiteral("color: #5f6b78"));
    hint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(head_label);
    layout->addWidget(m_head_box);
    layout->addSpacing(12);
    layout->addWidget(m_layer_label);
    layout->addWidget(m_layer_box);
    layout->addSpacing(12);
    layout->addWidget(hint, 1);
    connect(m_head_box, &QComboBox::activated, this, [this](int head) {
        setHead(head);
        emit headChosen(head);
    });
    connect(m_layer_box, &QSpinBox::valueChanged, this, [this](int layer) { emit layerChosen(layer); });
    syncBar();
}

void QueryKeyView::syncBar()
{
    const int heads = m_result ? m_result->numHeads() : 0;
    {
        const QSignalBlocker quiet(m_head_box);
        if (m_head_box->count() != heads) {
            m_head_box->clear();
            for (int h = 0; h < heads; ++h)
                m_head_box->addItem(tr("head %1").arg(h));
        }
        m_head_box->setCurrentIndex(std::min(m_head, heads - 1));
        m_head_box->setEnabled(heads > 0);
    }
    // A whole model's layer: its weights are the model's folder.
    const bool model = m_result && m_result->config.weight_source == RunSettings::WeightSource::File &&
                       QFileInfo(m_result->config.weights_file).isDir();
    m_layer_label->setVisible(model);
    m_layer_box->setVisible(model);
    if (model) {
        const QSignalBlocker quiet(m_layer_box);
        m_layer_box->setRange(0, std::max(0, m_result->layer_count - 1));
        m_layer_box->setValue(m_result->config.layer);
    }
}

QRectF QueryKeyView::plotArea() const
{
    return QRectF(rect()).adjusted(0, m_bar->height(), 0, 0);
}

void QueryKeyView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    m_bar->setGeometry(0, 0, width(), m_bar->sizeHint().height());
}

bool QueryKeyView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (!plotArea().contains(help->pos()))
            return QWidget::event(event);
        const QString point = describeAt(help->pos());
        QToolTip::showText(help->globalPos(), point.isEmpty() ? m_hint : point, this);
        return true;
    }
    return QWidget::event(event);
}

void QueryKeyView::setResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    changed();
}

void QueryKeyView::setHead(int head)
{
    m_head = std::max(0, head);
    changed();
}

bool QueryKeyView::isLarge() const
{
    return isLargeInput(m_result);
}

bool QueryKeyView::isCurrent() const
{
    return m_painter.result() == m_result && m_painter.head() == m_head;
}

void QueryKeyView::changed()
{
    syncBar();
    m_picture_job.supersede();  // a worker's answer for the old state is dropped
    m_requested = false;
    if (!isLarge())  // small: at once, as before
        computeNow();
    update();
}

void QueryKeyView::computeNow()
{
    if (isCurrent())
        return;
    m_painter.setResultAndHead(m_result, m_head);
    m_picture = QImage();  // drawn from m_painter until a worker draws it again
    m_picture_job.supersede();
    m_requested = false;
}

void QueryKeyView::requestPicture()
{
    if (m_requested)
        return;  // on its way
    m_requested = true;
    const qreal ratio = devicePixelRatioF();
    const QSize pixels = (plotArea().size() * ratio).toSize();
    QueryKeyPainter last = m_painter;  // reused when only the size changed
    m_picture_job.start(
        [result = m_result, head = m_head, last = std::move(last), ratio, pixels](const auto&) mutable {
            std::pair<QueryKeyPainter, QImage> drawn{std::move(last),
                                                     QImage(pixels, QImage::Format_ARGB32_Premultiplied)};
            QueryKeyPainter& scatter = drawn.first;
            if (scatter.result() != result || scatter.head() != head)
                scatter.setResultAndHead(result, head);
            drawn.second.setDevicePixelRatio(ratio);
            QPainter painter(&drawn.second);
            scatter.paint(painter, QRectF(QPointF(0, 0), QSizeF(pixels) / ratio));
            painter.end();
            return drawn;
        },
        [this](std::pair<QueryKeyPainter, QImage> drawn) {
            m_painter = std::move(drawn.first);
            m_picture = std::move(drawn.second);
            m_requested = false;
            update();
        });
}

void QueryKeyView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QRectF area = plotArea();
    if (!isLarge()) {
        m_painter.paint(painter, area);
        return;
    }
    const bool picture_fits = !m_picture.isNull() && m_picture.deviceIndependentSize() == area.size();
    if (!isCurrent() || !picture_fits) {
        if (!picture_fits && isCurrent())
            m_requested = false;  // a new size: the picture is drawn again
        requestPicture();
    }
    // The last picture (stretched if the size changed) until the new one arrives.
    if (!m_picture.isNull())
        painter.drawImage(area, m_picture);
    else if (!isLargeInput(m_painter.result()))
        m_painter.paint(painter, area);  // nothing yet, or a short input's scatter: quick to draw
    else
        painter.fillRect(area, Qt::white);
    if (m_requested) {
        const QString note = tr("computing head %1's queries and keys…").arg(m_head);
        QFont font = painter.font();
        font.setBold(true);
        painter.setFont(font);
        const QRectF box = painter.boundingRect(area, Qt::AlignRight | Qt::AlignTop, note).adjusted(-8, -4, 8, 4);
        const QRectF badge(area.right() - box.width() - 8, area.top() + 8, box.width(), box.height());
        painter.fillRect(badge, QColor(255, 244, 214, 235));
        painter.setPen(QColor(0x66, 0x44, 0x00));
        painter.drawText(badge, Qt::AlignCenter, note);
    }
}

void QueryKeyView::mouseMoveEvent(QMouseEvent* event)
{
    const QString text = describeAt(event->position());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void QueryKeyView::showResult(const ViewInput& input)
{
    setResult(input.shown);  // Q and K as computed; the hidden keys' flags for marking them
    setHead(std::min(input.head, input.computed->numHeads() - 1));
}

void QueryKeyView::renderPicture(QPainter* painter, const QRectF& target)
{
    m_painter.paint(*painter, target);
}

QSize QueryKeyView::pictureSize() const
{
    return plotArea().size().toSize();
}

QString QueryKeyView::exportName() const
{
    return QStringLiteral("attention-query-key-%1.png").arg(m_head);
}

}  // namespace attn
