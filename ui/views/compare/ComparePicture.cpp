#include "ui/views/compare/ComparePicture.h"

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"
#include "ui/views/ExportRequest.h"
#include "ui/views/compare/CompareFigure.h"

#include <QPainter>

#include <memory>

namespace attn {
namespace {

// The figure paints from shared results; a picture borrows the caller's without owning it.
std::shared_ptr<const AttentionResult> borrow(const AttentionResult& result)
{
    return std::shared_ptr<const AttentionResult>(std::shared_ptr<void>(), &result);
}

}  // namespace

Result<HeadlessPicture> ComparePicture::fromRequest(const PictureInput& input, const ExportRequest& request)
{
    return make(*input.shown, request.compare_a, *input.shown, request.compare_b, QString(), request.size,
                request.color_scale, request.reduction);
}

Result<HeadlessPicture> ComparePicture::make(const AttentionResult& result_a, int head_a,
                                             const AttentionResult& result_b, int head_b, const QString& label_b,
                                             const QSize& size, ColorScale color_scale, CellReduction reduction)
{
    for (auto [head, result] : {std::pair{head_a, &result_a}, std::pair{head_b, &result_b}})
        if (Status exists = HeadIndex::check(head, result->numHeads()); !exists)
            return Error{QStringLiteral("--compare: %1").arg(exists.error())};
    auto figure = std::make_shared<CompareFigure>();
    figure->setAttribute(Qt::WA_DontShowOnScreen);
    figure->resize(size);
    figure->setColorScale(color_scale);
    figure->setReduction(reduction);
    if (Status shown =
            figure->setComparison({borrow(result_a), head_a, QString()}, {borrow(result_b), head_b, label_b});
        !shown)
        return Error{QStringLiteral("--compare: %1").arg(shown.error())};
    return HeadlessPicture{[figure](QPainter* painter, const QRectF& target) { figure->paint(painter, target); }};
}

}  // namespace attn
