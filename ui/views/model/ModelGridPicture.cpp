#include "ui/views/model/ModelGridPicture.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/HeadScores.h"
#include "ui/views/ExportRequest.h"
#include "ui/views/model/ModelGridPainter.h"

#include <QPainter>

#include <memory>

namespace attn {

Result<HeadlessPicture> ModelGridPicture::fromRequest(const PictureInput& input, const ExportRequest& request)
{
    const ModelRun& run = *input.run;
    auto grid = std::make_shared<ModelGridPainter>();
    grid->setRun(std::shared_ptr<const ModelRun>(std::shared_ptr<void>(), &run));  // read while the picture is drawn
    grid->setCaption(input.caption);
    grid->setColorMap(request.color_map);
    grid->setColorScale(request.color_scale);
    if (!request.hidden_keys.isEmpty()) {
        if (auto hidden = AttentionDisplay::hiddenKeys(request.hidden_keys, run.seqLen()); !hidden)
            return Error{QStringLiteral("--hide-tokens: %1").arg(hidden.error())};
        grid->setHiddenKeys(request.hidden_keys);
    }
    grid->setReduction(request.reduction == CellReduction::Mean ? ThumbnailReduction::Mean : ThumbnailReduction::Max);
    grid->setAggregate(headFusionOf(request.aggregate));
    if (request.mark_heads || request.sort_heads) {
        // Scores are defined on distributions: value-weighted maps are scored row-normalised.
        const std::vector<HeadScore> scores =
            run.value_norms ? HeadScores::compute(AttentionDisplay::rowNormalisedMaps(run.attention), run.token_ids)
                            : HeadScores::compute(run.attention, run.token_ids);
        if (request.mark_heads) {
            const QString name = headScoreKindKey(*request.mark_heads);
            grid->setHeadMarks(headScoreValues(scores, name), name);
        }
        if (request.sort_heads) {
            const QString name = headOrderKindKey(*request.sort_heads);
            grid->setHeadOrder(headScoreValues(scores, name), name);
        }
    }
    const double pixel_ratio = input.png ? request.scale : 2.0;  // vector pages are zoomed: finer reduced images
    return HeadlessPicture{[grid, pixel_ratio](QPainter* painter, const QRectF& target) {
                               grid->paint(*painter, target, ModelGridPainter::Output::Picture, pixel_ratio);
                           },
                           QStringLiteral("attention-lab: every layer and head")};
}

}  // namespace attn
