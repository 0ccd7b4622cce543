#include "core/model/TransformerModel.h"

#include "core/model/TransformerForward.h"

namespace attn {

TransformerModel::TransformerModel(ModelConfig config, ModelWeights weights)
    : m_config(std::move(config)), m_weights(std::move(weights))
{
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
    model->m_weights = std::move(weights).value();
    return model;
}

Result<ModelRun> TransformerModel::forward(const std::vector<int>& token_ids, int selected_layer) const
{
    return TransformerForward::run(m_config, m_weights, token_ids, selected_layer);
}

Result<std::vector<TokenPrediction>> TransformerModel::predict(const ModelRun& run, const std::vector<int>& positions,
                                                               int k) const
{
    return TokenPredictions::topK(m_config, m_weights, run.last_hidden_state, positions, k);
}

}  // namespace attn
