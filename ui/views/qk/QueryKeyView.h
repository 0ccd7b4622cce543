#pragma once

#include "ui/views/qk/QueryKeyPainter.h"

#include <QWidget>

namespace attn {

// The Q-K tab: the selected head's queries and keys in one scatter (QueryKeyPainter); hovering a
// point names its token and position.
class QueryKeyView : public QWidget {
    Q_OBJECT

public:
    explicit QueryKeyView(QWidget* parent = nullptr);

    void setResult(std::shared_ptr<const AttentionResult> result);
    void setHead(int head);
    const QueryKeyPainter& painter() const { return m_painter; }
    QString describeAt(const QPointF& position) const { return m_painter.describe(position, rect()); }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QueryKeyPainter m_painter;
};

}  // namespace attn
