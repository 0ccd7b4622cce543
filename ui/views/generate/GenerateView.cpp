#include "ui/views/generate/GenerateView.h"

#include "core/model/EndOfSequence.h"
#include "core/model/RunPrefix.h"
#include "core/pipeline/MemoryPlan.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace attn {
namespace {

constexpr int kAlternatives = 5;

QString escaped(const QString& text)
{
    return text.toHtmlEscaped().replace(QChar(0x2423), QStringLiteral("&nbsp;"));
}

}  // namespace

GenerateView::GenerateView(QWidget* parent) : QWidget(parent)
{
    m_tokens = new QSpinBox(this);
    m_tokens->setObjectName(QStringLiteral("GenerateTokens"));
    m_tokens->setRange(1, GenerationRequest::kMaxNewTokens);
    m_tokens->setValue(16);
    m_tokens->setToolTip(tr("How many tokens to add after the input (fewer if the model ends the text)"));
    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("GenerateMode"));
    m_mode->addItems({tr("Greedy"), tr("Sampling")});
    m_mode->setToolTip(
        tr("Greedy: the most likely token each time (ties: the lower id). Sampling: a seeded draw "
           "after temperature, top-k and top-p"));
    m_temperature = new QDoubleSpinBox(this);
    m_temperature->setObjectName(QStringLiteral("GenerateTemperature"));
    m_temperature->setRange(0.01, 100.0);
    m_temperature->setDecimals(2);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(1.0);
    m_temperature->setToolTip(tr("Logits are divided by it before sampling: below 1 sharper, above 1 flatter"));
    m_top_k = new QSpinBox(this);
    m_top_k->setObjectName(QStringLiteral("GenerateTopK"));
    m_top_k->setRange(0, std::numeric_limits<int>::max());
    m_top_k->setSpecialValueText(tr("off"));
    m_top_k->setToolTip(tr("Sample among the k most likely tokens only (off: all)"));
    m_top_p = new QDoubleSpinBox(this);
    m_top_p->setObjectName(QStringLiteral("GenerateTopP"));
    m_top_p->setRange(0.01, 1.0);
    m_top_p->setDecimals(2);
    m_top_p->setSingleStep(0.05);
    m_top_p->setValue(1.0);
    m_top_p->setToolTip(tr("Sample among the most likely tokens whose probabilities reach p (1: all)"));
    m_seed = new QSpinBox(this);
    m_seed->setObjectName(QStringLiteral("GenerateSeed"));
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setToolTip(tr("The same seed gives the same tokens on every machine"));
    m_generate = new QPushButton(tr("Generate"), this);
    m_generate->setObjectName(QStringLiteral("GenerateButton"));
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setObjectName(QStringLiteral("GenerateStop"));
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("GenerateError"));
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->setWordWrap(true);
    m_error->hide();

    auto* controls = new QHBoxLayout;
    const auto add = [&](const QString& text, QWidget* field) {
        auto* caption = new QLabel(text, this);
        caption->setBuddy(field);
        controls->addWidget(caption);
        controls->addWidget(field);
    };
    add(tr("&Tokens"), m_tokens);
    controls->addWidget(m_mode);
    controls->addWidget(m_generate);
    controls->addWidget(m_stop);
    controls->addStretch();
    auto* sampling = new QHBoxLayout;  // a second row, so that the window keeps its narrow size
    std::swap(controls, sampling);
    add(tr("Temp."), m_temperature);
    add(tr("Top-k"), m_top_k);
    add(tr("Top-p"), m_top_p);
    add(tr("Seed"), m_seed);
    controls->addStretch();
    std::swap(controls, sampling);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("GenerateStatus"));
    m_status->setWordWrap(true);
    m_text = new QTextBrowser(this);
    m_text->setObjectName(QStringLiteral("GenerateSequence"));
    m_text->setMinimumHeight(60);

    m_step = new QSlider(Qt::Horizontal, this);
    m_step->setObjectName(QStringLiteral("GenerateStep"));
    m_step->setToolTip(tr("Replay the generation: every attention view shows the sequence as it was at this step"));
    m_step_label = new QLabel(this);
    m_step_label->setMinimumWidth(m_step_label->fontMetrics().horizontalAdvance(QStringLiteral("Step 0000 of 0000")));
    auto* step_row = new QHBoxLayout;
    step_row->addWidget(new QLabel(tr("Step"), this));
    step_row->addWidget(m_step, 1);
    step_row->addWidget(m_step_label);

    m_alternatives = new QListWidget(this);
    m_alternatives->setObjectName(QStringLiteral("GenerateAlternatives"));
    m_alternatives->setToolTip(tr("The model's top 5 at this step; click another token to branch from here"));
    m_branch_list = new QListWidget(this);
    m_branch_list->setObjectName(QStringLiteral("GenerateBranches"));
    m_branch_list->setToolTip(tr("Every generation and branch: click one to show it again"));
    auto* lists = new QGridLayout;
    lists->addWidget(new QLabel(tr("Top 5 at this step (another one branches)"), this), 0, 0);
    lists->addWidget(new QLabel(tr("Branches"), this), 0, 1);
    lists->addWidget(m_alternatives, 1, 0);
    lists->addWidget(m_branch_list, 1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(sampling);
    layout->addWidget(m_error);
    layout->addWidget(m_status);
    layout->addWidget(m_text, 2);
    layout->addLayout(step_row);
    layout->addLayout(lists, 1);

    connect(m_generate, &QPushButton::clicked, this, [this] { generate(); });
    connect(m_stop, &QPushButton::clicked, this, &GenerateView::stop);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &GenerateView::updateControls);
    connect(m_step, &QSlider::valueChanged, this, [this](int step) {
        if (!m_filling)
            showStep(step);
    });
    connect(m_alternatives, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        const int id = item->data(Qt::UserRole).toInt();
        if (m_step->value() >= 1 && id != m_steps[size_t(m_step->value() - 1)].token_id)
            branchAt(m_step->value(), id);
    });
    connect(m_branch_list, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (!m_filling)
            showBranch(m_branch_list->row(item));
    });
    clearModel();
}

GenerateView::~GenerateView()
{
    if (m_cancel)
        m_cancel->store(true);
}

void GenerateView::setPrompt(std::shared_ptr<const ModelSession> model, const std::vector<int>& ids)
{
    if (model != m_model) {
        clearModel();
        m_model = std::move(model);
    }
    m_prompt = ids;
    if (!m_running && m_branches.empty())
        m_status->setText(tr("Generate adds tokens after the %n token(s) of the input.", nullptr, int(ids.size())));
    updateControls();
}

void GenerateView::clearModel()
{
    if (m_cancel)
        m_cancel->store(true);
    m_job.supersede();
    m_model.reset();
    m_prompt.clear();
    m_ids.clear();
    m_steps.clear();
    m_prompt_length = 0;
    m_run.reset();
    m_generation.reset();
    m_branches.clear();
    m_current_branch = -1;
    m_running = false;
    refuse(QString());
    m_status->setText(
        tr("Generation adds tokens after the input, one at a time, with the model's "
           "top 5 at each step. Open a causal model folder (File \u203a Open model) to use it."));
    showSequence();
    showAlternatives();
    showBranchList();
    updateControls();
}

GenerationRequest GenerateView::settingsFromControls() const
{
    GenerationRequest request;
    request.max_new_tokens = m_tokens->value();
    request.sampling.sample = m_mode->currentIndex() == 1;
    request.sampling.temperature = m_temperature->value();
    request.sampling.top_k = m_top_k->value();
    request.sampling.top_p = m_top_p->value();
    request.sampling.seed = std::uint64_t(m_seed->value());
    request.keep_residual_stream = true;  // the Lens tab may show any step
    request.top_alternatives = kAlternatives;
    return request;
}

bool GenerateView::refuse(const QString& message)
{
    m_error->setText(message);
    m_error->setVisible(!message.isEmpty());
    return message.isEmpty();
}

Status GenerateView::planMemory(const ModelConfig& config, int final_length, std::int64_t budget)
{
    MemoryRequest request;
    request.query_len = final_length;
    request.key_len = final_length;
    // Each layer and head's rows (T (T + 1) / 2 weights) as the steps keep them, and as many in the
    // assembled run: T x T per head in all.
    request.num_heads = config.num_layers * config.num_heads;
    request.d_model = config.hidden_size;
    request.input_dim = config.hidden_size;
    request.output_dim = config.hidden_size;
    request.view_copies = config.num_heads;  // the All heads grid of the step shown
    request.masked = true;
    // Per token and layer: the layer input and the block input (kept in the steps and in the run),
    // and the cached keys and values.
    const std::int64_t kv_dim = std::int64_t(config.num_kv_heads > 0 ? config.num_kv_heads : config.num_heads) *
                                (config.hidden_size / std::max(1, config.num_heads));
    request.held = std::int64_t(final_length) * config.num_layers * (4 * config.hidden_size + 2 * kv_dim) *
                   std::int64_t(sizeof(float));
    return MemoryPlan::check(request, budget > 0 ? budget : MemoryPlan::defaultBudget());
}

bool GenerateView::generate()
{
    if (!m_model)
        return refuse(tr("Open a model folder first."));
    if (m_prompt.empty())
        return refuse(tr("Waiting for the model's run of the input."));
    GenerationRequest settings = settingsFromControls();
    auto eos = EndOfSequence::read(m_model->dir());
    if (!eos)
        return refuse(eos.error());
    settings.eos_ids = std::move(eos).value();
    if (Status s = TokenGeneration::plan(m_model->model(), m_prompt, settings); !s)
        return refuse(s.error());
    if (Status s = planMemory(m_model->config(), int(m_prompt.size()) + settings.max_new_tokens, m_memory_budget); !s)
        return refuse(s.error());
    refuse(QString());
    m_branches.push_back({m_prompt, settings, m_prompt, {}});
    m_current_branch = int(m_branches.size()) - 1;
    GenerationJob::Request request;
    request.prompt = m_prompt;
    request.settings = settings;
    startJob(std::move(request));
    return true;
}

bool GenerateView::branchAt(int step, int token_id)
{
    if (m_running || step < 1 || step > int(m_steps.size()) || m_current_branch < 0)
        return refuse(tr("A branch starts from a finished generation's step."));
    const Branch& from = m_branches[size_t(m_current_branch)];
    Branch branch{from.prompt, from.settings, {}, {}};
    branch.ids.assign(m_ids.begin(), m_ids.begin() + m_prompt_length + step - 1);
    branch.ids.push_back(token_id);
    branch.steps.assign(m_steps.begin(), m_steps.begin() + step - 1);
    refuse(QString());
    m_branches.push_back(branch);
    m_current_branch = int(m_branches.size()) - 1;
    GenerationJob::Request request;
    request.generation = m_generation;
    request.prompt = branch.prompt;
    request.settings = branch.settings;
    request.sequence = branch.ids;
    startJob(std::move(request));
    return true;
}

void GenerateView::showBranch(int index)
{
    if (index < 0 || index >= int(m_branches.size()) || m_running)
        return;
    const Branch& branch = m_branches[size_t(index)];
    m_current_branch = index;
    GenerationJob::Request request;
    request.generation = m_generation;
    request.prompt = branch.prompt;
    request.settings = branch.settings;
    request.sequence = branch.ids;
    request.generate = false;
    startJob(std::move(request));
}

void GenerateView::stop()
{
    if (m_cancel)
        m_cancel->store(true);
}

void GenerateView::startJob(GenerationJob::Request request)
{
    if (m_cancel)
        m_cancel->store(true);  // whatever runs stops at its next token
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    request.model = m_model;
    request.cancel = m_cancel;
    m_running = true;
    m_run.reset();
    const Branch& branch = m_branches[size_t(m_current_branch)];
    m_ids = branch.ids;
    m_steps = branch.steps;
    m_prompt_length = int(branch.prompt.size());
    m_status->setText(tr("Generating\u2026"));
    showSequence();
    showAlternatives();
    showBranchList();
    updateControls();
    m_job.start(
        [request = std::move(request)](const auto& ticket) {
            GenerationJob::Update done = GenerationJob::run(
                request, [&ticket](GenerationJob::Update update) { ticket.deliver(std::move(update)); });
            ticket.deliver(std::move(done));
        },
        [this](GenerationJob::Update update) {
            if (update.finished)
                takeFinished(std::move(update));
            else
                takeProgress(std::move(update));
        });
}

void GenerateView::takeProgress(GenerationJob::Update update)
{
    m_ids = std::move(update.ids);
    m_prompt_length = update.prompt_length;
    const GenerationStep& step = update.steps.front();
    m_steps.resize(size_t(step.position - m_prompt_length));
    m_steps.push_back(step);
    m_status->setText(tr("Generating\u2026 %1 of %2 tokens").arg(m_steps.size()).arg(m_tokens->value()));
    showSequence();
    emit stepAdded();
}

void GenerateView::takeFinished(GenerationJob::Update update)
{
    m_running = false;
    if (!update.error.isEmpty()) {
        refuse(update.error);
        m_status->clear();
    } else {
        m_ids = std::move(update.ids);
        m_steps = std::move(update.steps);
        m_prompt_length = update.prompt_length;
        m_run = std::move(update.run);
        m_generation = std::move(update.generation);
        Branch& branch = m_branches[size_t(m_current_branch)];
        branch.ids = m_ids;
        branch.steps = m_steps;
        const int n = int(m_steps.size());
        m_status->setText(update.cancelled        ? tr("Stopped after %n token(s).", nullptr, n)
                          : update.stopped_at_eos ? tr("%n token(s); the model ended the text.", nullptr, n)
                                                  : tr("%n token(s).", nullptr, n));
    }
    m_filling = true;
    m_step->setRange(0, int(m_steps.size()));
    m_step->setValue(int(m_steps.size()));
    m_filling = false;
    showBranchList();
    updateControls();
    showStep(m_step->value());
    emit finished();
}

void GenerateView::showStep(int step)
{
    step = std::clamp(step, 0, int(m_steps.size()));
    m_step_label->setText(tr("Step %1 of %2").arg(step).arg(m_steps.size()));
    showSequence();
    showAlternatives();
    if (!m_run || m_running)
        return;
    auto prefix = runPrefix(*m_run, m_prompt_length + step);
    if (!prefix) {
        refuse(prefix.error());
        return;
    }
    emit stepRunChosen(std::make_shared<const ModelRun>(std::move(prefix).value()));
}

QString GenerateView::label(int id) const
{
    if (!m_model)
        return QString::number(id);
    return m_model->tokenLabels({m_model->tokenText(id)}).value(0);
}

void GenerateView::showSequence()
{
    const int shown = m_running ? int(m_steps.size()) : m_step->value();
    QString html;
    for (int i = 0; i < int(m_ids.size()); ++i) {
        const QString text = escaped(label(m_ids[size_t(i)]));
        const int step = i - m_prompt_length + 1;  // 1-based among the generated tokens
        if (i < m_prompt_length)
            html += text;
        else if (step == shown)
            html += QStringLiteral("<b style=\"background-color:#f5c542; color:#000\">%1</b>").arg(text);
        else if (step < shown)
            html += QStringLiteral("<b>%1</b>").arg(text);
        else
            html += QStringLiteral("<span style=\"color:gray\">%1</span>").arg(text);
    }
    m_text->setHtml(html);
}

void GenerateView::showAlternatives()
{
    m_filling = true;
    m_alternatives->clear();
    const int step = m_step->value();
    if (!m_running && step >= 1 && step <= int(m_steps.size())) {
        const GenerationStep& at = m_steps[size_t(step - 1)];
        for (size_t i = 0; i < at.top_ids.size(); ++i) {
            const int id = at.top_ids[i];
            const bool chosen = id == at.token_id;
            auto* item = new QListWidgetItem(QStringLiteral("%1  %2   %3")
                                                 .arg(chosen ? QStringLiteral("\u2713") : QStringLiteral("  "))
                                                 .arg(at.top_p[i], 0, 'f', 4)
                                                 .arg(label(id)),
                                             m_alternatives);
            item->setData(Qt::UserRole, id);
            item->setToolTip(chosen ? tr("The token generated here (id %1)").arg(id)
                                    : tr("Branch: this token (id %1) here instead, and generate on").arg(id));
            if (chosen) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
        }
        if (at.forced && std::find(at.top_ids.begin(), at.top_ids.end(), at.token_id) == at.top_ids.end())
            new QListWidgetItem(tr("\u2713 %1 (chosen for the branch, not in the top 5)").arg(label(at.token_id)),
                                m_alternatives);
    }
    m_filling = false;
}

void GenerateView::showBranchList()
{
    m_filling = true;
    m_branch_list->clear();
    for (size_t i = 0; i < m_branches.size(); ++i) {
        const Branch& branch = m_branches[i];
        QString tail;
        for (size_t j = branch.prompt.size(); j < branch.ids.size(); ++j)
            tail += label(branch.ids[j]);
        auto* item =
            new QListWidgetItem(tr("%1. %2 (%n token(s))", nullptr, int(branch.ids.size() - branch.prompt.size()))
                                    .arg(i + 1)
                                    .arg(tail.replace(QChar(0x2423), QLatin1Char(' ')).left(80)),
                                m_branch_list);
        if (int(i) == m_current_branch) {
            QFont bold = item->font();
            bold.setBold(true);
            item->setFont(bold);
        }
    }
    if (m_current_branch >= 0)
        m_branch_list->setCurrentRow(m_current_branch);
    m_filling = false;
}

void GenerateView::updateControls()
{
    const bool sampling = m_mode->currentIndex() == 1;
    for (QWidget* field : {static_cast<QWidget*>(m_temperature), static_cast<QWidget*>(m_top_k),
                           static_cast<QWidget*>(m_top_p), static_cast<QWidget*>(m_seed)})
        field->setEnabled(sampling);
    m_generate->setEnabled(m_model != nullptr);
    m_stop->setEnabled(m_running);
    m_step->setEnabled(!m_running && m_run != nullptr);
    m_alternatives->setEnabled(!m_running);
    m_branch_list->setEnabled(!m_running);
}

void GenerateView::renderPicture(QPainter* painter, const QRectF& target)
{
    painter->save();
    painter->translate(target.topLeft());
    const QSize size = this->size();
    if (size.width() > 0 && size.height() > 0)
        painter->scale(target.width() / size.width(), target.height() / size.height());
    render(painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter->restore();
}

QSize GenerateView::pictureSize() const
{
    return size().expandedTo(QSize(800, 500));
}

QString GenerateView::exportName() const
{
    return QStringLiteral("attention-generate.png");
}

}  // namespace attn
