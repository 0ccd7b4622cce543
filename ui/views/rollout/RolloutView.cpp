#include "ui/views/rollout/RolloutView.h"

#include "core/analysis/AttentionFlow.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMetaObject>
#include <QPainter>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

namespace attn {
namespace {

class RolloutCanvas : public QWidget {
public:
    RolloutCanvas(RolloutView* view, QWidget* parent) : QWidget(parent), m_view(view) { setMinimumSize(320, 240); }

protected:
    void paintEvent(QPaintEvent*) override
    {
        m_view->bringUpToDate();
        QPainter painter(this);
        m_view->painter().paint(painter, rect());
    }

private:
    RolloutView* m_view;
};

}  // namespace

RolloutView::RolloutView(QWidget* parent) : QWidget(parent)
{
    m_painter.setComputeOnPaint(false);  // computed on m_workers' thread, never while painting
    m_method = new QComboBox(this);
    m_method->addItem(tr("Rollout"));
    m_method->addItem(tr("Flow (≤ %1 tokens)").arg(AttentionFlow::kMaxTokens));
    m_method->setToolTip(
        tr("Rollout multiplies the layers' maps; flow takes the maximum flow through them "
           "(Abnar & Zuidema, 2020)"));
    m_fusion = new QComboBox(this);
    m_fusion->addItem(tr("Mean"), QStringLiteral("mean"));
    m_fusion->addItem(tr("Max"), QStringLiteral("max"));
    m_fusion->addItem(tr("Min"), QStringLiteral("min"));
    m_residual = new QSlider(Qt::Horizontal, this);
    m_residual->setRange(0, 100);
    m_residual->setValue(50);
    m_residual->setToolTip(
        tr("How much of each layer is the residual connection: A = rows-normalised((1 - w) F + w I)"));
    m_residual_value = new QLabel(QStringLiteral("0.50"), this);
    m_fusion->setToolTip(tr("How each layer's heads are fused into one map before the layers are multiplied"));
    m_layer = new QSpinBox(this);
    m_layer->setToolTip(tr("Roll attention out through the layers up to this one"));
    m_layer->setPrefix(tr("after layer "));
    m_layer->setRange(0, 0);
    m_query = new QSpinBox(this);
    m_query->setPrefix(tr("token "));
    m_query->setRange(0, 0);
    m_query->setToolTip(tr("The token whose row is drawn as bars: where what it holds came from"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_method);
    controls->addWidget(new QLabel(tr("Heads"), this));
    controls->addWidget(m_fusion);
    controls->addWidget(m_layer);
    controls->addWidget(m_query);
    controls->addStretch(1);
    auto* residual = new QHBoxLayout;
    residual->addWidget(new QLabel(tr("Residual weight"), this));
    residual->addWidget(m_residual, 1);
    residual->addWidget(m_residual_value);
    m_canvas = new RolloutCanvas(this, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(residual);
    layout->addWidget(m_canvas, 1);

    connect(m_method, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_painter.setFlow(index == 1);
        m_layer->setEnabled(index == 0);  // the flow runs through every layer
        changed();
    });
    connect(m_fusion, &QComboBox::currentIndexChanged, this, &RolloutView::optionsChanged);
    connect(m_residual, &QSlider::valueChanged, this, &RolloutView::optionsChanged);
    connect(m_layer, &QSpinBox::valueChanged, this, &RolloutView::optionsChanged);
    connect(m_query, &QSpinBox::valueChanged, this, [this](int query) {
        m_query_chosen = true;
        m_painter.setQuery(query);
        m_canvas->update();
    });
    enableControls(false);  // until a model's run arrives
}

void RolloutView::enableControls(bool enabled)
{
    for (QWidget* control : std::initializer_list<QWidget*>{m_method, m_fusion, m_residual, m_query})
        control->setEnabled(enabled);
    m_layer->setEnabled(enabled && m_method->currentIndex() == 0);  // the flow runs through every layer
}

RolloutView::~RolloutView() = default;

void RolloutView::changed()
{
    m_rollout_job.supersede();  // the canvas asks again when it paints
    m_requested = false;
    m_canvas->update();
}

void RolloutView::bringUpToDate()
{
    if (!m_painter.isStale() || !m_painter.hasRun() || m_requested)
        return;
    m_requested = true;
    m_rollout_job.start([job = m_painter.job()](const auto&) { return RolloutPainter::compute(job); },
                        [this](Result<MatrixD> outcome) {
                            m_painter.setComputed(std::move(outcome));
                            m_canvas->update();
                            emit computed();
                        });
}

void RolloutView::computeNow()
{
    if (m_painter.isStale() && m_painter.hasRun())
        m_painter.setComputed(
            m_rollout_job.computeNow([job = m_painter.job()](const auto&) { return RolloutPainter::compute(job); }));
}

void RolloutView::setColorScale(ColorScale scale)
{
    m_painter.setColorScale(scale);
    m_canvas->update();
}

void RolloutView::setHiddenKeys(const QList<int>& positions)
{
    m_painter.setHiddenKeys(positions);
    m_canvas->update();
}

void RolloutView::setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
{
    const bool first = !m_painter.hasRun();
    // Another model (the same one gives runs of its shape): the token is chosen for it again.
    const std::shared_ptr<const ModelRun>& before = m_painter.run();
    if (first || !run || before->attention.isCausal() != run->attention.isCausal() ||
        before->numLayers() != run->numLayers() || before->attention.numHeads() != run->attention.numHeads())
        m_query_chosen = false;
    enableControls(run != nullptr);
    const int layers = run ? run->attention.numLayers() : 1;
    const int seq_len = run ? run->seqLen() : 1;
    const bool at_last_layer = first || m_layer->value() == m_layer->maximum();
    m_painter.setRun(std::move(run), tokens);
    {
        const QSignalBlocker block_layer(m_layer);
        const QSignalBlocker block_query(m_query);
        m_layer->setRange(0, std::max(0, layers - 1));
        if (at_last_layer)
            m_layer->setValue(m_layer->maximum());
        m_query->setRange(0, std::max(0, seq_len - 1));
        if (!m_query_chosen)
            m_painter.setQuery(-1);  // the painter's choice, for this input's length
        m_query->setValue(m_painter.query());
    }
    optionsChanged();
    if (m_query_chosen)
        m_painter.setQuery(m_query->value());
}

void RolloutView::clearModel()
{
    m_painter.setRun(nullptr, {});
    m_query_chosen = false;
    enableControls(false);
    changed();
}

void RolloutView::setColorMap(ColorMaps::Map map)
{
    m_painter.setColorMap(map);
    m_canvas->update();
}

void RolloutView::optionsChanged()
{
    const double weight = m_residual->value() / 100.0;
    m_residual_value->setText(QString::number(weight, 'f', 2));
    AttentionRollout::Options options;
    options.fusion = headFusionFromKey(m_fusion->currentData().toString()).value_or(HeadFusion::Mean);
    options.residual_weight = weight;
    options.last_layer = m_layer->value();
    m_painter.setOptions(options);
    changed();
}

void RolloutView::renderPicture(QPainter* painter, const QRectF& target)
{
    m_painter.paint(*painter, target);
}

QSize RolloutView::pictureSize() const
{
    return canvas()->size();
}

QString RolloutView::exportName() const
{
    return QStringLiteral("attention-rollout.png");
}

}  // namespace attn
