#pragma once

#include <QObject>
#include <QStringList>

#include <memory>

class QAction;
class QLabel;
class QToolButton;

namespace attn {

class AttentionController;
class ViewTabs;
struct ModelRun;

// The window's weights <-> norms switch (View › Heatmaps, a checkable action of the registry, also
// a button at the tabs' top right corner): with norms every heatmap view draws value-weighted
// attention ||A_ij f(x_j)|| of the result and run in hand; switching computes only the value
// norms, never the pass again. The whole model's run reaches the Model and Rollout tabs through
// here (the rollout's maps row-normalised). When the norms cannot be drawn (a long input keeps
// one head only) the switch stays on, the weights are drawn, and why shows beside the button
// until the norms can be drawn again.
class AttentionKindSwitch : public QObject {
    Q_OBJECT
public:
    AttentionKindSwitch(AttentionController* controller, ViewTabs* tabs, QAction* action, QObject* parent = nullptr);

    bool norms() const { return m_norms; }
    void setNorms(bool norms);  // checks the action; the views follow at once
    // A whole model's run, as the controller gives it: to the Model and Rollout tabs as drawn.
    void showModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens);

    // Why the norms are not drawn, as shown beside the button; "" when they are (or are off).
    QString problemShown() const;
    QLabel* problemLabel() const { return m_problem_label; }
    QToolButton* button() const { return m_button; }

signals:
    void normsChanged(bool norms);
    // Why the norms cannot be drawn (the weights are drawn meanwhile); "" when they are.
    void problem(const QString& message);

private:
    void applyToRun();
    void showProblem();

    AttentionController* m_controller;
    ViewTabs* m_tabs;
    QAction* m_action;
    bool m_norms = false;
    std::shared_ptr<const ModelRun> m_run;  // as computed
    QStringList m_tokens;
    QString m_result_problem;  // of the single-layer result the views draw
    QString m_run_problem;     // of the whole model's run (Model, Rollout)
    QLabel* m_problem_label = nullptr;
    QToolButton* m_button = nullptr;
};

}  // namespace attn
