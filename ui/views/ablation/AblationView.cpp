#include "ui/views/ablation/AblationView.h"

#include "core/lens/ResidualRows.h"
#include "core/model/TokenPredictions.h"
#include "core/model/TransformerForward.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace attn {
namespace {

constexpr int kTopPredictions = 10;

}  // namespace

AblationView::AblationView(QWidget* parent) : QWidget(parent)
{
    m_metric = new MetricChooser(
        QStringLiteral("Ablation"),
        tr("The token whose logit each ablation moves: one of the head's top predictions, or typed as "
           "the window shows it (\u2423cat), as the vocabulary spells it (\u0120cat) or as an id"),
        this);
    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("AblationMode"));
    m_mode->addItem(tr("zero"), int(HeadAblation::Zero));
    m_mode->addItem(tr("mean"), int(HeadAblation::Mean));
    m_mode->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_mode->setToolTip(tr("What an ablated head's output z becomes: zeros, or its mean over the positions"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("AblationProgress"));
    m_progress->setMaximumWidth(220);
    m_progress->setFormat(tr("%v of %m heads"));
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("AblationCancel"));
    m_cancel->setToolTip(tr("Stop the scan; the last finished picture stays"));
    m_cancel->hide();
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("AblationProblem"));
    m_problem->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_problem->setWordWrap(true);
    m_problem->hide();

    auto* scan_row = new QHBoxLayout;
    scan_row->addWidget(new QLabel(tr("Ablation"), this));
    scan_row->addWidget(m_mode);
    scan_row->addWidget(m_progress);
    scan_row->addWidget(m_cancel);
    scan_row->addWidget(m_problem, 1);
    scan_row->addStretch();  // the fields keep their size while the problem line is hidden

    m_canvas = new QWidget(this);
    m_canvas->setObjectName(QStringLiteral("AblationCanvas"));
    m_canvas->setMinimumSize(300, 200);
    m_canvas->setMouseTracking(true);
    m_canvas->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_metric);
    layout->addLayout(scan_row);
    layout->addWidget(m_canvas, 1);

    m_progress_timer = new QTimer(this);
    m_progress_timer->setInterval(100);
    connect(m_progress_timer, &QTimer::timeout, this, &AblationView::showProgress);
    connect(m_metric, &MetricChooser::changed, this, &AblationView::inputsChanged);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &AblationView::inputsChanged);
    connect(m_cancel, &QPushButton::clicked, this, &AblationView::cancelScan);
    clearModel();
}

AblationView::~AblationView()
{
    if (m_running)
        m_running->cancel->store(true);  // the worker's scan stops at its next pass
}

void AblationView::setModel(std::shared_ptr<const ModelSession> model)
{
    if (model == m_model)
        return;
    m_model = std::move(model);
    m_run.reset();
    m_metric->setModel(m_model);
    inputsChanged();
}

void AblationView::clearModel()
{
    dropScan();
    m_model.reset();
    m_run.reset();
    m_painter.setMessage(
        tr("The ablation scan switches each head of a model off in turn and shows how far the "
           "prediction moves. Open a model folder (File \u203a Open model) to see it."));
    m_metric->clear();
    m_canvas->update();
}

void AblationView::setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
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

std::optional<AblationView::Job> AblationView::pendingJob()
{
    if (!m_model) {
        m_painter.setMessage(tr("Open a model folder (File \u203a Open model) to scan its heads."));
        m_canvas->update();
        return std::nullopt;
    }
    QString problem;
    if (!m_model->model().hasPredictionHead())
        problem = tr("The ablation scan needs the model's prediction head, which this folder lacks (%1).")
                      .arg(m_model->model().weights().head_missing);
    else if (!m_run)
        problem = tr("Waiting for the model's run…");
    if (!problem.isEmpty()) {
        dropScan();
        if (m_painter.result()) {  // the last good picture stays, the reason beside it
            m_problem->setText(problem);
            m_problem->show();
        } else {
            m_painter.setMessage(problem);
        }
        m_canvas->update();
        return std::nullopt;
    }
    const auto choice = m_metric->read();
    if (!choice) {
        dropScan();  // the last good picture stays, the error beside its field
        return std::nullopt;
    }
    m_problem->hide();
    Job job;
    job.model = m_model;
    job.run = m_run;
    job.position = choice->position;
    job.target = choice->target;
    job.foil = choice->foil;
    job.mode = HeadAblation(m_mode->currentData().toInt());
    return job;
}

void AblationView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_outdated)
        inputsChanged();
}

void AblationView::inputsChanged()
{
    // A scan is L x H passes: only for the tab in view (computeNow scans for an export).
    m_outdated = !isVisible();
    if (m_outdated)
        return;
    auto job = pendingJob();
    if (!job)
        return;
    if (m_running)
        m_running->cancel->store(true);  // the older scan stops; this one starts after it
    m_running = *job;
    setScanning(true);
    m_job.start([job = *job](const auto&) { return compute(job); },
                [this, job = *job](Outcome outcome) { showOutcome(std::move(outcome), job); });
}

void AblationView::computeNow()
{
    m_outdated = false;
    auto job = pendingJob();
    if (!job)
        return;
    if (m_running)
        m_running->cancel->store(true);
    m_running.reset();
    showOutcome(m_job.computeNow([job = *job](const auto&) { return compute(job); }), *job);
}

AblationView::Outcome AblationView::compute(const Job& job)
{
    Outcome outcome;
    const ModelConfig& config = job.model->config();
    const ModelWeights& weights = job.model->model().weights();
    // The scan starts each pass from the plain run's residual stream: the window's run is used
    // when it is plain and kept it (pre-norm models; the BERT family keeps its layer inputs).
    std::shared_ptr<const ModelRun> plain = job.run;
    const bool needs_stream = ResidualRows::preNorm(config) && plain->residual_stream.empty();
    if (!plain->replaced_heads.empty() || needs_stream) {
        auto run = TransformerForward::run(config, weights, plain->token_ids, 0, true);
        if (!run) {
            outcome.scan = Error{run.error()};
            return outcome;
        }
        plain = std::make_shared<const ModelRun>(std::move(run).value());
    }
    auto top = TokenPredictions::topK(config, weights, plain->last_hidden_state, {job.position}, kTopPredictions);
    if (!top) {
        outcome.scan = Error{top.error()};
        return outcome;
    }
    outcome.top = top->front().ids;
    outcome.tokens.target = job.target.value_or(outcome.top.front());
    outcome.tokens.foil = job.foil;
    ScanControl control;
    control.cancel = job.cancel.get();
    control.report = [done = job.done, total = job.total](int d, int t) {
        total->store(t);
        done->store(d);
    };
    outcome.scan = AblationScan::run(config, weights, *plain, job.position, outcome.tokens, job.mode, control);
    return outcome;
}

void AblationView::showOutcome(Outcome outcome, const Job& job)
{
    setScanning(false);
    m_running.reset();
    m_metric->setTopPredictions(outcome.top);
    if (!outcome.scan) {
        // A refusal or a cancelled scan: said beside the picture, which stays.
        m_problem->setText(outcome.scan.error());
        m_problem->show();
    } else {
        m_problem->hide();
        const QString position_label =
            job.position < m_labels.size() ? m_labels[job.position] : QString::number(job.position);
        const QString metric = MetricChooser::metricText(
            m_metric->tokenShown(outcome.tokens.target),
            outcome.tokens.foil ? m_metric->tokenShown(*outcome.tokens.foil) : QString(), job.position, position_label);
        m_painter.setResult(std::make_shared<const AblationScanResult>(std::move(outcome.scan).value()), metric);
    }
    m_canvas->update();
    emit computed();
}

void AblationView::dropScan()
{
    m_job.supersede();  // nothing under way will be delivered
    if (m_running)
        m_running->cancel->store(true);
    m_running.reset();
    setScanning(false);
}

void AblationView::cancelScan()
{
    if (!m_running)
        return;
    m_running->cancel->store(true);
}

void AblationView::setScanning(bool scanning)
{
    m_scanning = scanning;
    m_progress->setVisible(scanning);
    m_cancel->setVisible(scanning);
    if (scanning) {
        m_progress->setRange(0, 0);  // busy until the first pass reports
        m_progress_timer->start();
    } else {
        m_progress_timer->stop();
        m_painter.setProgressNote(QString());
    }
}

void AblationView::showProgress()
{
    if (!m_running)
        return;
    const int total = m_running->total->load();
    const int done = m_running->done->load();
    if (total > 0) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
        m_painter.setProgressNote(tr("scanning\u2026 %1 of %2 heads").arg(done).arg(total));
        m_canvas->update();
    }
}

bool AblationView::eventFilter(QObject* watched, QEvent* event)
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
                    emit headAblationRequested(head->first, head->second, m_painter.result()->mode);
            return true;
        }
        if (event->type() == QEvent::MouseMove) {
            const auto* mouse = static_cast<QMouseEvent*>(event);
            const auto head = m_painter.headAt(m_canvas->rect(), mouse->position());
            m_canvas->setCursor(head ? Qt::PointingHandCursor : Qt::ArrowCursor);
            m_canvas->setToolTip(head ? tr("Layer %1, head %2: %3 (click to ablate this head in the window's run)")
                                            .arg(head->first)
                                            .arg(head->second)
                                            .arg(m_painter.result()->at(head->first, head->second), 0, 'f', 4)
                                      : QString());
            return false;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void AblationView::renderPicture(QPainter* painter, const QRectF& target)
{
    m_painter.paint(*painter, target);
}

QSize AblationView::pictureSize() const
{
    return m_canvas->size().expandedTo(QSize(900, 560));
}

QString AblationView::exportName() const
{
    return QStringLiteral("attention-ablation.png");
}

}  // namespace attn
