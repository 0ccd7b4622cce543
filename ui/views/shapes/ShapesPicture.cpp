#include "ui/views/shapes/ShapesPicture.h"

#include "core/model/ModelRun.h"
#include "ui/views/ExportRequest.h"
#include "ui/views/shapes/ModelChainPainter.h"
#include "ui/views/shapes/ShapeDiagramExport.h"
#include "ui/views/shapes/ShapeDiagramPainter.h"

#include <QPainter>

#include <memory>

namespace attn {

Result<HeadlessPicture> ShapesPicture::ofResult(const PictureInput& input, const ExportRequest& request)
{
    // The computation as it is: the hidden keys change no shape.
    const AttentionResult& result = *input.computed;
    if (Status ok = ShapeDiagramExport::check(result, request.batch, request.head); !ok)
        return Error{ok.error()};
    auto diagram = std::make_shared<const ShapeDiagramPainter>(
        ShapeDiagramExport::painterFor(result, request.batch, request.head));
    return HeadlessPicture{[diagram](QPainter* painter, const QRectF& target) { diagram->paint(*painter, target); },
                           QStringLiteral("attention-lab: tensor shapes")};
}

Result<HeadlessPicture> ShapesPicture::ofModel(const PictureInput& input, const ExportRequest& request)
{
    (void)request;
    auto chain = std::make_shared<ModelChainPainter>(*input.config, input.run->seqLen());
    chain->setCaption(input.caption);
    return HeadlessPicture{[chain](QPainter* painter, const QRectF& target) { chain->paint(*painter, target); },
                           QStringLiteral("attention-lab: the shapes of a whole model")};
}

}  // namespace attn
