#include "ui/views/shapes/ShapeDiagramExport.h"

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"
#include "ui/views/shapes/ShapeDiagramPainter.h"

namespace attn {

ShapeDiagramPainter ShapeDiagramExport::painterFor(const AttentionResult& result, int batch, int head)
{
    ShapeDiagramPainter diagram(ShapeData(ShapeConfig::fromResult(result, batch)), head);
    QString caption = result.weights_description;
    if (!caption.isEmpty())
        caption += QStringLiteral(" weights");
    diagram.setCaption(caption);
    return diagram;
}

Status ShapeDiagramExport::check(const AttentionResult& result, int batch, int head)
{
    if (batch < 1)
        return Error{QStringLiteral("--batch: the batch size must be a positive integer, got %1").arg(batch)};
    if (result.numHeads() <= 0 || result.seqLen() <= 0)
        return Error{QStringLiteral("--view shapes: there is no computation to draw")};
    if (Status exists = HeadIndex::check(head, result.numHeads()); !exists)
        return Error{QStringLiteral("--head: %1").arg(exists.error())};
    return {};
}

}  // namespace attn
