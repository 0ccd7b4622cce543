#include "ui/shell/ResultStatus.h"

#include "core/pipeline/AttentionResult.h"

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>

namespace attn {

ResultStatus::ResultStatus(QStatusBar* bar) : QObject(bar)
{
    m_tokens = new QLabel(bar);
    m_heads = new QLabel(bar);
    m_time = new QLabel(bar);
    m_weights = new QLabel(bar);
    m_tokens->setToolTip(tr("Number of tokens in the sentence"));
    m_heads->setToolTip(tr("Heads and the size of each head"));
    m_time->setToolTip(tr("Compute time of the last update (forward pass)"));
    m_weights->setToolTip(tr("Where the weights come from"));
    for (QLabel* label : {m_tokens, m_heads, m_time, m_weights})
        label->setContentsMargins(6, 0, 10, 0);
    m_busy = new QProgressBar(bar);
    m_busy->setRange(0, 0);  // indeterminate
    m_busy->setMaximumWidth(90);
    m_busy->setMaximumHeight(12);
    m_busy->setTextVisible(false);
    m_busy->setToolTip(tr("Computing the newest input…"));
    m_busy->hide();
    bar->addWidget(m_tokens);
    bar->addWidget(m_heads);
    bar->addWidget(m_time);
    bar->addWidget(m_busy);
    bar->addPermanentWidget(m_weights);
}

void ResultStatus::showResult(const AttentionResult& result)
{
    const int tokens = result.seqLen();
    const QString lengths = tokens == 1 ? tr("1 token") : tr("%1 tokens").arg(tokens);
    m_tokens->setText(result.isCross() ? tr("%1 → %2 keys").arg(lengths).arg(result.keyLen()) : lengths);
    m_heads->setText((result.numHeads() == 1 ? tr("1 head × %2 = d_model %3")
                                             : tr("%1 heads × %2 = d_model %3").arg(result.numHeads()))
                         .arg(result.trace.head_dim)
                         .arg(result.config.d_model));
    m_time->setText(tr("computed in %1 ms").arg(result.compute_ms, 0, 'f', result.compute_ms < 10 ? 2 : 1));
    m_weights->setText(tr("weights: %1").arg(result.weights_description));
}

void ResultStatus::setBusy(bool busy)
{
    m_busy->setVisible(busy);
}

QString ResultStatus::text() const
{
    return QStringList{m_tokens->text(), m_heads->text(), m_time->text()}.join(QStringLiteral(" | "));
}

}  // namespace attn
