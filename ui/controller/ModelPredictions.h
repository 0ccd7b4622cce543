#pragma once

#include "core/model/ModelRun.h"
#include "core/model/TokenPredictions.h"

#include <functional>
#include <memory>
#include <vector>

namespace attn {

class LatestJob;
class ModelSession;

// A whole model's head's top 5 at the positions its run predicts (GPT-2: every position, the next
// token; the BERT family: each [MASK]). Each position costs V x C multiply-adds (GPT-2 small:
// 39 M), so they are computed after the run's result, on the worker, as part of that result's
// request: the next request drops them.
class ModelPredictions {
public:
    // `request`: the controller's result job, whose next request drops the predictions under way;
    // `ready` is called on its owner's thread when they are in.
    ModelPredictions(LatestJob& request, std::function<void()> ready);

    // Starts them for the run in hand; false when its model predicts nothing there.
    bool start(std::shared_ptr<const ModelSession> model, std::shared_ptr<const ModelRun> run, int threads);
    // A newer request came: whatever is under way stops at its next chunk and is never delivered.
    void drop() { m_running = false; }
    void clear() { m_predictions.clear(); }
    bool isRunning() const { return m_running; }
    const std::vector<TokenPrediction>& predictions() const { return m_predictions; }

private:
    LatestJob& m_request;
    std::function<void()> m_ready;
    std::vector<TokenPrediction> m_predictions;
    bool m_running = false;
};

}  // namespace attn
