#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QProgressBar;
class QStatusBar;

namespace attn {

struct AttentionResult;

// The window's status bar: tokens, heads, compute time of the last update, a busy bar while a
// result is pending, and where the weights come from.
class ResultStatus : public QObject {
    Q_OBJECT
public:
    explicit ResultStatus(QStatusBar* bar);

    void showResult(const AttentionResult& result);
    void setBusy(bool busy);
    QString text() const;  // "13 tokens | 8 heads × 64 = d_model 512 | computed in 2.1 ms"

private:
    QLabel* m_tokens = nullptr;
    QLabel* m_heads = nullptr;
    QLabel* m_time = nullptr;
    QLabel* m_weights = nullptr;
    QProgressBar* m_busy = nullptr;
};

}  // namespace attn
