#include "ui/views/ablation/AblationPicture.h"

#include "core/lens/AblationScan.h"
#include "core/lens/ResidualRows.h"
#include "core/model/ModelSession.h"
#include "core/model/TransformerForward.h"
#include "ui/views/ExportRequest.h"
#include "ui/views/MetricChooser.h"
#include "ui/views/ablation/AblationPainter.h"

#include <QPainter>

#include <memory>

namespace attn {

Result<HeadlessPicture> AblationPicture::fromRequest(const PictureInput& input, const ExportRequest& request)
{
    if (!input.session)
        return Error{QStringLiteral("--view ablation: needs the model's prediction head (--model DIR)")};
    const ModelSession& session = *input.session;
    const ModelConfig& config = session.config();
    if (!session.model().hasPredictionHead())
        return Error{QStringLiteral("--view ablation: the model folder has no prediction head (%1)")
                         .arg(session.model().weights().head_missing)};
    if (!request.metric)
        return Error{
            QStringLiteral("--view ablation: needs --metric TARGET[,FOIL] (the number each ablation changes)")};
    const ModelRun& run = *input.run;
    const int position = request.position.value_or(run.seqLen() - 1);
    if (position < 0 || position >= run.seqLen())
        return Error{
            QStringLiteral("--position %1: outside the input (positions 0 to %2)").arg(position).arg(run.seqLen() - 1)};
    // The scan starts from the plain run's residual stream: the run given when it is plain and kept it.
    const ModelRun* plain = &run;
    ModelRun plain_run;
    if (!run.replaced_heads.empty() || (ResidualRows::preNorm(config) && run.residual_stream.empty())) {
        auto again = TransformerForward::run(config, session.model().weights(), run.token_ids, 0, true);
        if (!again)
            return Error{QStringLiteral("--view ablation: %1").arg(again.error())};
        plain_run = std::move(again).value();
        plain = &plain_run;
    }
    auto scan =
        AblationScan::run(config, session.model().weights(), *plain, position, *request.metric, request.ablation_mode);
    if (!scan)
        return Error{QStringLiteral("--view ablation: %1").arg(scan.error())};
    const auto label = [&session](int id) { return session.tokenLabels({session.tokenText(id)}).value(0); };
    const MetricTokens& tokens = *request.metric;
    const QString metric =
        MetricChooser::metricText(label(tokens.target), tokens.foil ? label(*tokens.foil) : QString(), position,
                                  position < input.labels.size() ? input.labels[position] : QString::number(position));
    auto painter = std::make_shared<AblationPainter>();
    std::vector<std::pair<int, int>> ablated;
    for (const ReplacedHead& head : run.replaced_heads)
        ablated.emplace_back(head.layer, head.head);
    painter->setAblated(std::move(ablated));
    painter->setResult(std::make_shared<const AblationScanResult>(std::move(scan).value()), metric);
    return HeadlessPicture{[painter](QPainter* p, const QRectF& target) { painter->paint(*p, target); },
                           QStringLiteral("attention-lab: ablation scan")};
}

}  // namespace attn
