#include "ui/views/attribution/AttributionPicture.h"

#include "core/lens/LogitAttribution.h"
#include "core/lens/ResidualRows.h"
#include "core/model/ModelSession.h"
#include "ui/views/ExportRequest.h"
#include "ui/views/attribution/AttributionPainter.h"

#include <QPainter>

#include <memory>

namespace attn {

Result<HeadlessPicture> AttributionPicture::fromRequest(const PictureInput& input, const ExportRequest& request)
{
    if (!input.session)
        return Error{QStringLiteral("--view attribution: needs the model's prediction head (--model DIR)")};
    const ModelSession& session = *input.session;
    const ModelConfig& config = session.config();
    if (!session.model().hasPredictionHead())
        return Error{QStringLiteral("--view attribution: the model folder has no prediction head (%1)")
                         .arg(session.model().weights().head_missing)};
    if (!ResidualRows::preNorm(config))
        return Error{QStringLiteral("--view attribution: only for pre-norm models (GPT-2, Llama, Qwen2, Mistral, "
                                    "GPT-NeoX); %1 normalises after each block")
                         .arg(config.model_type)};
    if (!request.metric)
        return Error{
            QStringLiteral("--view attribution: needs --metric TARGET[,FOIL] (the logit it splits into parts)")};
    const ModelRun& run = *input.run;
    const int position = request.position.value_or(run.seqLen() - 1);
    if (position < 0 || position >= run.seqLen())
        return Error{
            QStringLiteral("--position %1: outside the input (positions 0 to %2)").arg(position).arg(run.seqLen() - 1)};
    auto attribution = LogitAttribution::compute(config, session.model().weights(), run, position, *request.metric);
    if (!attribution)
        return Error{QStringLiteral("--view attribution: %1").arg(attribution.error())};
    // The labels are made now: the session is only read while this function runs.
    const auto label = [&session](int id) { return session.tokenLabels({session.tokenText(id)}).value(0); };
    const MetricTokens& tokens = *request.metric;
    const QString metric = AttributionPainter::metricText(
        label(tokens.target), tokens.foil ? label(*tokens.foil) : QString(), position,
        position < input.labels.size() ? input.labels[position] : QString::number(position));
    auto painter = std::make_shared<AttributionPainter>();
    painter->setResult(std::make_shared<const AttributionResult>(std::move(attribution).value()), metric);
    return HeadlessPicture{[painter](QPainter* p, const QRectF& target) { painter->paint(*p, target); },
                           QStringLiteral("attention-lab: direct logit attribution")};
}

}  // namespace attn
