#pragma once

#include <QObject>
#include <QStringList>

#include <memory>

class QAction;

namespace attn {

class AttentionController;
class ViewTabs;
struct ModelRun;

// The window's weights <-> norms switch (View › Heatmaps, a checkable action of the registry):
// with norms every heatmap view draws value-weighted attention ||A_ij f(x_j)|| of the result and
// run in hand; switching computes only the value norms, never the pass again. The whole model's
// run reaches the Model and Rollout tabs through here (the rollout's maps row-normalised).
class AttentionKindSwitch : public QObject {
    Q_OBJECT
public:
    AttentionKindSwitch(AttentionController* controller, ViewTabs* tabs, QAction* action, QObject* parent = nullptr);

    bool norms() const { return m_norms; }
    void setNorms(bool norms);  // checks the action; the views follow at once
    // A whole model's run, as the controller gives it: to the Model and Rollout tabs as drawn.
    void showModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens);

signals:
    void normsChanged(bool norms);
    // Why the norms cannot be drawn (the weights are drawn meanwhile); "" when they are.
    void problem(const QString& message);

private:
    void applyToRun();

    AttentionController* m_controller;
    ViewTabs* m_tabs;
    QAction* m_action;
    bool m_norms = false;
    std::shared_ptr<const ModelRun> m_run;  // as computed
    QStringList m_tokens;
};

}  // namespace attn
