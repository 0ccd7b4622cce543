#include "ui/shell/AttentionKindSwitch.h"

#include "core/model/ModelRun.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/controller/AttentionController.h"
#include "ui/controller/ValueNormsSource.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/rollout/RolloutView.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

#include <algorithm>

namespace attn {

AttentionKindSwitch::AttentionKindSwitch(AttentionController* controller, ViewTabs* tabs, QAction* action,
                                         QObject* parent)
    : QObject(parent), m_controller(controller), m_tabs(tabs), m_action(action)
{
    m_action->setChecked(false);
    connect(m_action, &QAction::toggled, this, &AttentionKindSwitch::setNorms);

    auto* corner = new QWidget(tabs);
    corner->setObjectName(QStringLiteral("AttentionKindCorner"));
    m_problem_label = new QLabel(corner);
    m_problem_label->setObjectName(QStringLiteral("AttentionKindProblem"));
    m_problem_label->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_problem_label->hide();
    m_button = new QToolButton(corner);
    m_button->setObjectName(QStringLiteral("AttentionKindButton"));
    m_button->setDefaultAction(m_action);
    m_button->setText(tr("Norms"));
    m_button->setAutoRaise(true);
    auto* layout = new QHBoxLayout(corner);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(m_problem_label);
    layout->addWidget(m_button);
    tabs->setCornerWidget(corner, Qt::TopRightCorner);
    // setDefaultAction copies the action's long text each time it changes: the button keeps its word.
    connect(m_action, &QAction::changed, m_button, [this] { m_button->setText(tr("Norms")); });
    connect(m_tabs, &ViewTabs::valueNormsProblem, this, [this](const QString& message) {
        m_result_problem = message;
        showProblem();
    });
    // Every model run reaches the Model and Rollout tabs through here, as weights or as norms.
    connect(m_controller, &AttentionController::modelRunReady, this, &AttentionKindSwitch::showModelRun);
}

void AttentionKindSwitch::setNorms(bool norms)
{
    m_action->setChecked(norms);
    if (norms == m_norms)
        return;
    m_norms = norms;
    if (norms) {
        AttentionController* controller = m_controller;
        m_tabs->setValueNorms(
            [controller](const AttentionResult& result) { return ValueNormsSource::ofResult(*controller, result); });
    } else {
        m_tabs->setValueNorms({});
    }
    m_result_problem = m_tabs->valueNormsError();
    applyToRun();
    showProblem();
    emit normsChanged(norms);
}

void AttentionKindSwitch::showModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
{
    m_run = std::move(run);
    m_tokens = tokens;
    applyToRun();
}

void AttentionKindSwitch::applyToRun()
{
    if (!m_run)
        return;
    const QStringList labels = m_controller->modelLabels();
    const QString before = m_run_problem;
    m_run_problem.clear();
    auto runs = m_norms ? ValueNormsSource::weighedRuns(*m_controller, *m_run)
                        : Result<ValueNormsSource::WeighedRuns>(Error{QString()});
    if (runs) {
        m_tabs->setModelRun(runs->norms, m_tokens);
        m_tabs->rolloutView()->setModelRun(runs->row_normalised, labels);
    } else {
        m_run_problem = runs.error();
        m_tabs->setModelRun(m_run, m_tokens);
        m_tabs->rolloutView()->setModelRun(m_run, labels);
    }
    if (m_run_problem != before)
        showProblem();
}

QString AttentionKindSwitch::problemShown() const
{
    return m_problem_label->isHidden() ? QString() : m_problem_label->toolTip();
}

void AttentionKindSwitch::showProblem()
{
    const QString cause = !m_norms ? QString() : !m_result_problem.isEmpty() ? m_result_problem : m_run_problem;
    const QString message = cause.isEmpty() ? QString() : tr("Norms not drawn: %1; the weights are drawn").arg(cause);
    // The whole message in the tooltip; the label, beside the button, as much of it as fits.
    m_problem_label->setToolTip(message);
    m_problem_label->setText(
        m_problem_label->fontMetrics().elidedText(message, Qt::ElideRight, std::max(120, m_tabs->width() / 3)));
    m_problem_label->setVisible(!message.isEmpty());
    emit problem(message);
}

}  // namespace attn
