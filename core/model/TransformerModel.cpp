#include "core/model/TransformerModel.h"

#include "core/model/TransformerForward.h"

#include <algorithm>

namespace attn {

TransformerModel::TransformerModel(ModelConfig config, ModelWeights weights)
    : m_config(std::move(config)), m_weights(std::move(weights))
{
    m_weights.moveMlpsIntoTiles();
}

Result<std::unique_ptr<TransformerModel>> TransformerModel::load(const QString& dir)
{
    auto folder = ModelFolder::open(dir);
    if (!folder)
        return Error{folder.error()};
    auto weights = ModelWeights::load(**folder);
    if (!weights)
        return Error{weights.error()};
    std::unique_ptr<TransformerModel> model(new TransformerModel);
    model->m_config = (*folder)->config();
    model->m_folder = std::move(folder).value();
    model->m_weights = std::move(weights).value();  // BF16 MLPs already in tiles (ModelWeights::load)
    return model;
}

Result<ModelRun> TransformerModel::forward(const std::vector<int>& token_ids, int selected_layer,
                                           bool keep_residual_stream) const
{
    return TransformerForward::run(m_config, m_weights, token_ids, selected_layer, keep_residual_stream);
}

Result<std::shared_ptr<const ModelRun>> TransformerModel::forward(const std::vector<int>& token_ids, int selected_layer,
                                                                  ForwardCache& cache, bool keep_residual_stream) const
{
    // Every row changes with a new token in a bidirectional model: it is computed whole.
    if (!m_config.causal) {
        cache.clear();
        auto run = forward(token_ids, selected_layer, keep_residual_stream);
        if (!run)
            return Error{run.error()};
        return std::make_shared<const ModelRun>(std::move(run).value());
    }
    const bool lacks_residuals =
        keep_residual_stream && cache.run && int(cache.run->residual_stream.size()) != m_config.num_layers;
    if (cache.model != this || (cache.run && cache.run->selected_layer != selected_layer) || lacks_residuals)
        cache.clear();
    const ModelRun* earlier = cache.run.get();
    if (earlier && earlier->token_ids == token_ids)
        return cache.run;

    // The tokens shared with the cached run, from the start; at least the last token is computed.
    int reused = 0;
    if (earlier) {
        const auto shared =
            std::mismatch(token_ids.begin(), token_ids.end(), earlier->token_ids.begin(), earlier->token_ids.end());
        reused = std::min(int(shared.first - token_ids.begin()), int(token_ids.size()) - 1);
    }
    if (reused <= 0) {
        earlier = nullptr;
        reused = 0;
        cache.layers.clear();
    }
    auto run = TransformerForward::runAppending(m_config, m_weights, token_ids, selected_layer, earlier, reused,
                                                cache.layers, keep_residual_stream);
    if (!run) {
        cache.clear();
        return Error{run.error()};
    }
    cache.model = this;
    cache.run = std::make_shared<const ModelRun>(std::move(run).value());
    return cache.run;
}

Result<std::vector<TokenPrediction>> TransformerModel::predict(const ModelRun& run, const std::vector<int>& positions,
                                                               int k) const
{
    return TokenPredictions::topK(m_config, m_weights, run.last_hidden_state, positions, k);
}

}  // namespace attn
