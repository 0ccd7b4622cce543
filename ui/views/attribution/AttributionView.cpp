#include "ui/views/attribution/AttributionView.h"

#include "core/lens/LogitMetric.h"
#include "core/lens/ResidualRows.h"
#include "ui/views/TokenField.h"

#include <QComboBox>
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

QLabel* errorLabel(QWidget* parent, const QString& name)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setStyleSheet(QStringLiteral("color: #c0392b;"));
    label->setWordWrap(true);
    label->hide();
    return label;
}

QComboBox* tokenBox(QWidget* parent, const QString& name, const QString& placeholder)
{
    auto* box = new QComboBox(parent);
    box->setObjectName(name);
    box->setEditable(true);
    box->setInsertPolicy(QComboBox::NoInsert);
    box->setMinimumContentsLength(12);
    box->lineEdit()->setPlaceholderText(placeholder);
    return box;
}

void showError(QLabel* label, const QString& message)
{
    label->setText(message);
    label->setVisible(!message.isEmpty());
}

}  // namespace

AttributionView::AttributionView(QWidget* parent) : QWidget(parent)
{
    m_target = tokenBox(this, QStringLiteral("AttributionTarget"), tr("top prediction"));
    m_target->setToolTip(
        tr("The token whose logit is split into parts: one of the head's top predictions, or typed as "
           "the window shows it (\u2423cat), as the vocabulary spells it (\u0120cat) or as an id"));
    m_foil = tokenBox(this, QStringLiteral("AttributionFoil"), tr("none"));
    m_foil->setToolTip(tr("Optional: attribute logit(target) \u2212 logit(foil) instead"));
    m_target_error = errorLabel(this, QStringLiteral("AttributionTargetError"));
    m_foil_error = errorLabel(this, QStringLiteral("AttributionFoilError"));
    m_position = new QSpinBox(this);
    m_position->setObjectName(QStringLiteral("AttributionPosition"));
    m_position->setToolTip(tr("The position whose prediction is attributed (the last one until you choose)"));
    m_position->setEnabled(false);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Target"), this));
    controls->addWidget(m_target);
    controls->addWidget(m_target_error, 1);
    controls->addWidget(new QLabel(tr("Foil"), this));
    controls->addWidget(m_foil);
    controls->addWidget(m_foil_error, 1);
    controls->addWidget(new QLabel(tr("Position"), this));
    controls->addWidget(m_position);
    controls->addStretch();

    m_canvas = new QWidget(this);
    m_canvas->setObjectName(QStringLiteral("AttributionCanvas"));
    m_canvas->setMinimumSize(300, 200);
    m_canvas->setMouseTracking(true);
    m_canvas->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_canvas, 1);

    connect(m_target, &QComboBox::editTextChanged, this, [this] {
        if (!m_filling)
            inputsChanged();
    });
    connect(m_foil, &QComboBox::editTextChanged, this, [this] {
        if (!m_filling)
            inputsChanged();
    });
    connect(m_position, &QSpinBox::valueChanged, this, [this] {
        if (m_filling)
            return;
        m_position_chosen = true;
        inputsChanged();
    });
    clearModel();
}

AttributionView::~AttributionView() = default;

void AttributionView::setModel(std::shared_ptr<const ModelSession> model)
{
    if (model == m_model)
        return;
    m_model = std::move(model);
    m_run.reset();
    m_position_chosen = false;
    m_filling = true;
    m_target->clear();
    m_foil->clear();
    m_filling = false;
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
    m_position->setEnabled(false);
    m_canvas->update();
}

void AttributionView::setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
{
    m_run = std::move(run);
    m_labels = tokens;
    if (m_run) {
        m_filling = true;
        m_position->setRange(0, std::max(0, m_run->seqLen() - 1));
        if (!m_position_chosen || m_position->value() >= m_run->seqLen())
            m_position->setValue(m_run->seqLen() - 1);
        m_position->setEnabled(true);
        m_filling = false;
    }
    inputsChanged();
}

QString AttributionView::tokenShown(int id) const
{
    return m_model ? TokenField::label(*m_model, id) : QString::number(id);
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

    Job job{m_model, m_run, m_position->value(), std::nullopt, std::nullopt};
    bool ok = true;
    const auto read = [&](QComboBox* box, QLabel* error, std::optional<int>& id) {
        const QString text = box->currentText().trimmed();
        if (text.isEmpty()) {
            showError(error, QString());
            return;
        }
        auto parsed = TokenField::read(*box, *m_model);
        if (!parsed) {
            showError(error, parsed.error());
            ok = false;
            return;
        }
        showError(error, QString());
        id = *parsed;
    };
    read(m_target, m_target_error, job.target);
    read(m_foil, m_foil_error, job.foil);
    if (!ok) {
        m_job.supersede();  // the last good picture stays
        return std::nullopt;
    }
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
    QStringList items;
    for (int id : outcome.top)
        items << tokenShown(id);
    if (items != m_top) {  // refilled only when they change: the text being typed stays as it is
        m_top = items;
        m_filling = true;
        for (QComboBox* box : {m_target, m_foil})
            TokenField::fill(*box, *m_model, outcome.top);
        m_filling = false;
    }
    if (!outcome.attribution) {
        showError(m_target_error, outcome.attribution.error());
    } else {
        const AttributionResult& r = *outcome.attribution;
        const QString position_label =
            job.position < m_labels.size() ? m_labels[job.position] : QString::number(job.position);
        const QString metric = AttributionPainter::metricText(tokenShown(r.tokens.target),
                                                              r.tokens.foil ? tokenShown(*r.tokens.foil) : QString(),
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
            if (auto head = m_painter.headAt(m_canvas->rect(), mouse->position()))
                emit headActivated(head->first, head->second);
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
