#include "ui/views/rollout/RolloutPicture.h"

#include "core/analysis/AttentionDisplay.h"
#include "ui/views/ExportRequest.h"
#include "ui/views/rollout/RolloutPainter.h"

#include <QPainter>

#include <memory>

namespace attn {

Result<HeadlessPicture> RolloutPicture::fromRequest(const PictureInput& input, const ExportRequest& request)
{
    const ModelRun& run = *input.run;
    auto rollout = std::make_shared<RolloutPainter>();
    // Read while the picture is drawn.
    rollout->setRun(std::shared_ptr<const ModelRun>(std::shared_ptr<void>(), &run), input.labels);
    rollout->setOptions(request.rollout);
    if (!rollout->error().isEmpty())
        return Error{rollout->error()};
    if (!request.hidden_keys.isEmpty()) {
        if (auto hidden = AttentionDisplay::hiddenKeys(request.hidden_keys, run.seqLen()); !hidden)
            return Error{QStringLiteral("--hide-tokens: %1").arg(hidden.error())};
        rollout->setHiddenKeys(request.hidden_keys);
    }
    rollout->setColorScale(request.color_scale);
    rollout->setCaption(input.caption);
    rollout->setColorMap(request.color_map);
    return HeadlessPicture{[rollout](QPainter* painter, const QRectF& target) { rollout->paint(*painter, target); },
                           QStringLiteral("attention-lab: attention rollout")};
}

}  // namespace attn
