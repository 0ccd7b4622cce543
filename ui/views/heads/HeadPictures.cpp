#include "ui/views/heads/HeadPictures.h"

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"
#include "ui/views/ExportRequest.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"

#include <memory>

namespace attn {
namespace {

Status checkHead(const PictureInput& input, const ExportRequest& request)
{
    if (Status head = HeadIndex::check(request.head, input.computed->numHeads()); !head)
        return Error{QStringLiteral("--head: %1").arg(head.error())};
    return {};
}

}  // namespace

Result<HeadlessPicture> HeadPictures::grid(const PictureInput& input, const ExportRequest& request)
{
    if (Status ok = checkHead(input, request); !ok)
        return Error{ok.error()};
    auto grid = std::make_shared<HeadsGrid>();
    grid->setAttribute(Qt::WA_DontShowOnScreen);
    grid->setColorMap(request.color_map);
    grid->setColorScale(request.color_scale);
    grid->setTopMass(request.top_mass);
    grid->setReduction(request.reduction);
    grid->setAggregate(request.aggregate);
    grid->resize(request.size);
    grid->setResult(input.shown);
    return HeadlessPicture{[grid](QPainter* painter, const QRectF& target) { grid->render(painter, target); }};
}

Result<HeadlessPicture> HeadPictures::head(const PictureInput& input, const ExportRequest& request)
{
    if (Status ok = checkHead(input, request); !ok)
        return Error{ok.error()};
    auto view = std::make_shared<HeadView>();
    view->setAttribute(Qt::WA_DontShowOnScreen);
    view->setColorMap(request.color_map);
    view->setColorScale(request.color_scale);
    view->setTopMass(request.top_mass);
    view->setReduction(request.reduction);
    view->resize(request.size);
    view->setResult(input.shown);
    view->setHead(request.head);
    return HeadlessPicture{[view](QPainter* painter, const QRectF& target) { view->render(painter, target); }};
}

}  // namespace attn
