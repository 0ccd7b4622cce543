#pragma once

#include <QRectF>
#include <QString>

class QPainter;

namespace attn {

struct ModelRun;

// How every view shows a run's ablated heads (ModelRun::replaced_heads): a crossed-out frame over
// the head, and a caption part ("2 heads ablated"). The ablation is a state of the analysis, so
// both are drawn into exported pictures too.
class AblatedHeads {
public:
    static bool any(const ModelRun& run);
    static bool isAblated(const ModelRun& run, int layer, int head);
    static QString caption(const ModelRun& run);  // empty for a plain run
    static void paintMark(QPainter& painter, const QRectF& box);
};

}  // namespace attn
