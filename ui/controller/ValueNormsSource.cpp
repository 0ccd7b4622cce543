#include "ui/controller/ValueNormsSource.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/lens/AttentionNorms.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelSession.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/controller/AttentionController.h"

namespace attn {

Result<Matrix> ValueNormsSource::ofResult(const AttentionController& controller, const AttentionResult& result)
{
    const AttentionWeights* weights = nullptr;
    const std::shared_ptr<const ModelSession> model = controller.model();
    const std::shared_ptr<const ModelRun> run = controller.modelRun();
    const std::shared_ptr<const LoadedWeights> loaded = controller.weights();
    if (model && run) {
        const int layer = result.config.layer;  // the layer chooser's, not the run's first
        if (layer < 0 || layer >= int(model->model().weights().layers.size()))
            return Error{QStringLiteral("no weights for layer %1").arg(layer)};
        weights = &model->model().weights().layers[size_t(layer)].attention;
    } else if (loaded) {
        weights = &loaded->weights;
    }
    if (!weights)
        return Error{QStringLiteral("no weights in use")};
    if (result.trace.v.rows() != result.keyLen() || result.trace.v.cols() != weights->kvDim())
        return Error{QStringLiteral("the result's values do not match the weights in use")};
    return AttentionNorms::valueNorms(result.trace.v, weights->num_heads, weights->kvHeads(), weights->out_proj);
}

namespace {

// What the model grid and the rollout read: the tokens and the maps, not the pass's rows.
std::shared_ptr<const ModelRun> runWith(const ModelRun& run, AttentionMaps maps)
{
    auto weighed = std::make_shared<ModelRun>();
    weighed->token_ids = run.token_ids;
    weighed->attention = std::move(maps);
    weighed->num_kv_heads = run.num_kv_heads;
    weighed->selected_layer = run.selected_layer;
    weighed->value_norms = true;
    return weighed;
}

}  // namespace

Result<ValueNormsSource::WeighedRuns> ValueNormsSource::weighedRuns(const AttentionController& controller,
                                                                    const ModelRun& run)
{
    const std::shared_ptr<const ModelSession> model = controller.model();
    if (!model)
        return Error{QStringLiteral("no model open")};
    auto norms = AttentionNorms::ofModel(model->config(), model->model().weights(), run);
    if (!norms)
        return Error{norms.error()};
    auto maps = AttentionDisplay::weighedMaps(run.attention, *norms);
    if (!maps)
        return Error{maps.error()};
    WeighedRuns runs;
    runs.row_normalised = runWith(run, AttentionDisplay::rowNormalisedMaps(*maps));
    runs.norms = runWith(run, std::move(maps).value());
    return runs;
}

}  // namespace attn
