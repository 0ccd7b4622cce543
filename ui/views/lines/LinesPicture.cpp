#include "ui/views/lines/LinesPicture.h"

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"
#include "ui/views/ExportRequest.h"
#include "ui/views/lines/LinesCanvas.h"

#include <QPainter>

#include <memory>

namespace attn {

Result<HeadlessPicture> LinesPicture::fromRequest(const PictureInput& input, const ExportRequest& request)
{
    return make(*input.shown, request.head, request.size, request.top_mass);
}

Result<HeadlessPicture> LinesPicture::make(const AttentionResult& result, int head, const QSize& size, double top_mass)
{
    if (Status exists = HeadIndex::check(head, result.numHeads()); !exists && head != LinesCanvas::kAllHeads)
        return Error{QStringLiteral("--head: %1").arg(exists.error())};
    auto canvas = std::make_shared<LinesCanvas>();
    canvas->setAttribute(Qt::WA_DontShowOnScreen);
    canvas->resize(size);
    // Borrowed: the canvas reads the result only while the picture is drawn.
    canvas->setResult(std::shared_ptr<const AttentionResult>(std::shared_ptr<void>(), &result));
    canvas->setHead(head);
    canvas->setTopMass(top_mass);
    return HeadlessPicture{[canvas](QPainter* painter, const QRectF& target) { canvas->paint(*painter, target); }};
}

}  // namespace attn
