#include "ui/views/AblatedHeads.h"

#include "core/model/ModelRun.h"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <utility>

namespace attn {

bool AblatedHeads::any(const ModelRun& run)
{
    return !run.replaced_heads.empty();
}

bool AblatedHeads::isAblated(const ModelRun& run, int layer, int head)
{
    return std::any_of(run.replaced_heads.begin(), run.replaced_heads.end(),
                       [&](const ReplacedHead& r) { return r.layer == layer && r.head == head; });
}

QString AblatedHeads::caption(const ModelRun& run)
{
    const int count = int(run.replaced_heads.size());
    if (count == 0)
        return {};
    return count == 1 ? QCoreApplication::translate("AblatedHeads", "1 head ablated")
                      : QCoreApplication::translate("AblatedHeads", "%1 heads ablated").arg(count);
}

void AblatedHeads::paintMark(QPainter& painter, const QRectF& box)
{
    // A crossed-out frame in a red no colour map uses for weights: the head is switched off.
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QColor mark(0xc6, 0x28, 0x28);
    painter.setBrush(Qt::NoBrush);
    const QRectF frame = box.adjusted(-2.5, -2.5, 2.5, 2.5);
    // A white halo under the red: the mark stays visible on red cells of a diverging map too.
    for (const auto& [colour, width] : {std::pair{QColor(Qt::white), 4.5}, std::pair{mark, 2.0}}) {
        painter.setPen(QPen(colour, width));
        painter.drawRect(frame);
        painter.drawLine(box.topLeft(), box.bottomRight());
        painter.drawLine(box.topRight(), box.bottomLeft());
    }
    painter.restore();
}

}  // namespace attn
