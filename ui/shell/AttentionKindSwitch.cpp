#include "ui/shell/AttentionKindSwitch.h"

#include "core/model/ModelRun.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/controller/AttentionController.h"
#include "ui/controller/ValueNormsSource.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/rollout/RolloutView.h"

#include <QAction>

namespace attn {

AttentionKindSwitch::AttentionKindSwitch(AttentionController* controller, ViewTabs* tabs, QAction* action,
                                         QObject* parent)
    : QObject(parent), m_controller(controller), m_tabs(tabs), m_action(action)
{
    m_action->setChecked(false);
    connect(m_action, &QAction::toggled, this, &AttentionKindSwitch::setNorms);
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
    emit problem(m_tabs->valueNormsError());
    applyToRun();
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
    if (!m_norms) {
        m_tabs->setModelRun(m_run, m_tokens);
        m_tabs->rolloutView()->setModelRun(m_run, labels);
        return;
    }
    auto runs = ValueNormsSource::weighedRuns(*m_controller, *m_run);
    if (!runs) {
        emit problem(tr("Norms: %1; the weights are drawn").arg(runs.error()));
        m_tabs->setModelRun(m_run, m_tokens);
        m_tabs->rolloutView()->setModelRun(m_run, labels);
        return;
    }
    m_tabs->setModelRun(runs->norms, m_tokens);
    m_tabs->rolloutView()->setModelRun(runs->row_normalised, labels);
}

}  // namespace attn
