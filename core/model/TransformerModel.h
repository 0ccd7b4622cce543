#pragma once

#include "core/model/ForwardCache.h"
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
    // keep_residual_stream: ModelRun::residual_stream too (the logit lens reads it).
    Result<ModelRun> forward(const std::vector<int>& token_ids, int selected_layer = 0,
                             bool keep_residual_stream = false) const;

    // forward() for live typing: the same run, computing only what the cache cannot give.
    //   Causal model (GPT-2, the Llama family, GPT-NeoX): the tokens shared with the cache's run, from the start, are reused
    //   (their keys, after any rotation, and values per layer, attention rows, last hidden state
    //   rows), and only the
    //   tokens after them are computed: typing at the end of the sentence computes one token per
    //   layer. A token changed in the middle invalidates the cache from there; a shorter input
    //   recomputes its last token; the same input returns the cached run itself. A different
    //   selected layer, or another model's cache, starts from nothing.
    //   Non-causal models (BERT, DistilBERT): every row changes with every token, so the whole pass
    //   is computed, and the cache is left empty.
    // The result equals forward()'s up to the order of float32 sums (products over fewer rows may
    // sum in another order): within float32's error bounds of each layer (test_forward_cache), and
    // within the command-line contract's 2e-5 between the layers. The run is shared with the cache,
    // which keeps it for the next call (the caller's copy costs nothing). On an error the cache is cleared.
    // Not thread-safe: one cache per sequence of calls, one call at a time (a worker thread may own
    // it); the model itself may serve several caches at once.
    // keep_residual_stream: as above; a cached run that did not keep it is not reused.
    Result<std::shared_ptr<const ModelRun>> forward(const std::vector<int>& token_ids, int selected_layer,
                                                    ForwardCache& cache, bool keep_residual_stream = false) const;

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
