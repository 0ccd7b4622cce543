#include "ui/views/qk/QueryKeyPicture.h"

#include "ui/views/ExportRequest.h"
#include "ui/views/qk/QueryKeyPainter.h"

#include <QPainter>

#include <memory>

namespace attn {

Result<HeadlessPicture> QueryKeyPicture::fromRequest(const PictureInput& input, const ExportRequest& request)
{
    auto scatter = std::make_shared<QueryKeyPainter>();
    scatter->setResult(input.shown);  // Q and K as computed; the hidden keys marked
    scatter->setHead(request.head);
    if (!scatter->problem().isEmpty())
        return Error{scatter->problem()};
    return HeadlessPicture{[scatter](QPainter* painter, const QRectF& target) { scatter->paint(*painter, target); },
                           QStringLiteral("attention-lab: query-key space")};
}

}  // namespace attn
