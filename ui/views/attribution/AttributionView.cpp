#include "ui/views/attribution/AttributionView.h"

#include "core/lens/LogitMetric.h"
#include "core/lens/ResidualRows.h"

#include <QComboBox>
#include <QContextMenuEvent>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QSpinBox>
#include <QVBoxLayout>

namespace attn {
namespace {

constexpr int kTopPredictions = 10;

}  // namespace

AttributionView::AttributionView(QWidget* parent) : QWidget(parent)
{
    m_metric = new MetricChooser(
        QStringLiteral("Attribution"),
        tr("The token whose logit is split into parts: one of the head's top predictions, or typed as "
           "the window shows it (\u2423cat), as the vocabulary spells it (\u0120cat) or as an id"),
        this);

    m_canvas = new QWidget(this);
    m_canvas->setObjectName(QStringLiteral("AttributionCanvas"));
    m_canvas->setMinimumSize(300, 200);
    m_canvas->setMouseTracking(true);
    m_canvas->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_metric);
    layout->addWidget(m_canvas, 1);

    connect(m_metric, &MetricChooser::changed, this, &AttributionView::inputsChanged);
    clearModel();
}

AttributionView::~AttributionView() = default;

void AttributionView::setModel(std::shared_ptr<const ModelSession> model)
{
    if (model == m_model)
        return;
    m_model = std::move(model);
    m_run.reset();
    m_metric->setModel(m_model);
    inputsChanged();
}

void AttributionView::clearModel()
{
    m_model.reset();
    m_run.reset();
    m_job.supersede();
    m_painter.setMessage(
        tr("Direct logit attribution splits a model's prediction into what each head, MLP and "
           "bias adds to it. Open a model folder (File \u203a Open model) to see it."));
    m_metric->clear();
    m_canvas->update();
}

void AttributionView::setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
{
    m_run = std::move(run);
    m_labels = tokens;
    m_metric->setRun(m_run.get());
    std::vector<std::pair<int, int>> ablated;
    if (m_run)
        for (const ReplacedHead& head : m_run->replaced_heads)
            ablated.emplace_back(head.layer, head.head);
    m_painter.setAblated(std::move(ablated));
    inputsChanged();
}

std::optional<AttributionView::Job> AttributionView::pendingJob()
{
    if (!m_model) {
        clearModel();
        return std::nullopt;
    }
    const ModelConfig& config = m_model->config();
    QString neutral;
    if (!ResidualRows::preNorm(config))
        neutral = tr("Direct logit attribution needs a pre-norm model (GPT-2, the Llama family, Qwen2, Mistral, "
                     "GPT-NeoX): %1 normalises after each block, so its parts do not add up to the logit.")
                      .arg(config.model_type);
    else if (!m_model->model().hasPredictionHead())
        neutral = tr("Direct logit attribution needs the model's prediction head, which this folder lacks (%1).")
                      .arg(m_model->model().weights().head_missing);
    else if (!m_run)
        neutral = tr("Waiting for the model's run…");
    if (!neutral.isEmpty()) {
        m_job.supersede();
        m_painter.setMessage(neutral);
        m_canvas->update();
        return std::nullopt;
    }

    const auto choice = m_metric->read();
    if (!choice) {
        m_job.supersede();  // the last good picture stays
        return std::nullopt;
    }
    Job job{m_model, m_run, choice->position, choice->target, choice->foil};
    return job;
}

void AttributionView::inputsChanged()
{
    auto job = pendingJob();
    if (!job)
        return;
    m_painter.setUpdating(true);
    m_canvas->update();
    m_job.start([job = *job](const auto&) { return compute(job); },
                [this, job = *job](Outcome outcome) { showOutcome(std::move(outcome), job); });
}

void AttributionView::computeNow()
{
    auto job = pendingJob();
    if (!job)
        return;
    showOutcome(m_job.computeNow([job = *job](const auto&) { return compute(job); }), *job);
}

AttributionView::Outcome AttributionView::compute(const Job& job)
{
    Outcome outcome;
    const ModelConfig& config = job.model->config();
    const ModelWeights& weights = job.model->model().weights();
    auto top = TokenPredictions::topK(config, weights, job.run->last_hidden_state, {job.position}, kTopPredictions);
    if (!top) {
        outcome.attribution = Error{top.error()};
        return outcome;
    }
    outcome.top = top->front().ids;
    MetricTokens tokens;
    tokens.target = job.target.value_or(outcome.top.front());
    tokens.foil = job.foil;
    outcome.attribution = LogitAttribution::compute(config, weights, *job.run, job.position, tokens);
    return outcome;
}

void AttributionView::showOutcome(Outcome outcome, const Job& job)
{
    m_painter.setUpdating(false);
    m_metric->setTopPredictions(outcome.top);
    if (!outcome.attribution) {
        m_metric->showTargetError(outcome.attribution.error());
    } else {
        const AttributionResult& r = *outcome.attribution;
        const QString position_label =
            job.position < m_labels.size() ? m_labels[job.position] : QString::number(job.position);
        const QString metric = AttributionPainter::metricText(
            m_metric->tokenShown(r.tokens.target), r.tokens.foil ? m_metric->tokenShown(*r.tokens.foil) : QString(),
            job.position, position_label);
        m_painter.setResult(std::make_shared<const AttributionResult>(std::move(outcome.attribution).value()), metric);
    }
    m_canvas->update();
    emit computed();
}

bool AttributionView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_canvas) {
        if (event->type() == QEvent::Paint) {
            QPainter painter(m_canvas);
            painter.setRenderHint(QPainter::Antialiasing);
            m_painter.paint(painter, m_canvas->rect());
            return true;
        }
        if (event->type() == QEvent::MouseButtonPress) {
            const auto* mouse = static_cast<QMouseEvent*>(event);
            if (mouse->button() == Qt::LeftButton)
                if (auto head = m_painter.headAt(m_canvas->rect(), mouse->position()))
                    emit headActivated(head->first, head->second);
            return true;
        }
        if (event->type() == QEvent::ContextMenu) {
            const auto* menu = static_cast<QContextMenuEvent*>(event);
            if (auto head = m_painter.headAt(m_canvas->rect(), menu->pos()))
                emit headMenuRequested(head->first, head->second, menu->globalPos());
            return true;
        }
        if (event->type() == QEvent::MouseMove) {
            const auto* mouse = static_cast<QMouseEvent*>(event);
            const auto head = m_painter.headAt(m_canvas->rect(), mouse->position());
            m_canvas->setCursor(head ? Qt::PointingHandCursor : Qt::ArrowCursor);
            m_canvas->setToolTip(head ? tr("Layer %1, head %2: %3 (click to open its attention map)")
                                            .arg(head->first)
                                            .arg(head->second)
                                            .arg(m_painter.result()->head(head->first, head->second), 0, 'f', 4)
                                      : QString());
            return false;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void AttributionView::renderPicture(QPainter* painter, const QRectF& target)
{
    m_painter.paint(*painter, target);
}

QSize AttributionView::pictureSize() const
{
    return m_canvas->size().expandedTo(QSize(900, 560));
}

QString AttributionView::exportName() const
{
    return QStringLiteral("attention-attribution.png");
}

}  // namespace attn
