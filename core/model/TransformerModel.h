#pragma once

#include "core/model/ModelFolder.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelWeights.h"
#include "core/model/TokenPredictions.h"

#include <memory>
#include <vector>

namespace attn {

// A whole pretrained model: its config and weights, from a Hugging Face folder (whose mapped
// files it keeps open: weights may be read in place from them) or from weights built in memory.
class TransformerModel {
public:
    // Messages name the file in the folder and the reason.
    static Result<std::unique_ptr<TransformerModel>> load(const QString& dir);
    // For weights that do not come from a folder (benchmarks, tests).
    TransformerModel(ModelConfig config, ModelWeights weights);

    const ModelConfig& config() const { return m_config; }
    const ModelWeights& weights() const { return m_weights; }

    // TransformerForward::run: every layer's attention, the last hidden state, and the selected
    // layer's attention input and Q, K, V.
    Result<ModelRun> forward(const std::vector<int>& token_ids, int selected_layer = 0) const;

    bool hasPredictionHead() const { return m_weights.head.has_value(); }
    Result<std::vector<TokenPrediction>> predict(const ModelRun& run, const std::vector<int>& positions,
                                                 int k = 5) const;

private:
    TransformerModel() = default;

    std::unique_ptr<ModelFolder> m_folder;  // before the weights: they may point into its files
    ModelConfig m_config;
    ModelWeights m_weights;
};

}  // namespace attn
