#include "ui/controller/ModelPredictions.h"

#include "core/model/ModelSession.h"
#include "ui/workers/LatestJob.h"

#include <omp.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace attn {

ModelPredictions::ModelPredictions(LatestJob& request, std::function<void()> ready)
    : m_request(request), m_ready(std::move(ready))
{
}

bool ModelPredictions::start(std::shared_ptr<const ModelSession> model, std::shared_ptr<const ModelRun> run,
                             int threads)
{
    if (!model || !run || !model->model().hasPredictionHead())
        return false;
    std::vector<int> positions = model->predictedPositions(run->token_ids);
    if (positions.empty())
        return false;
    m_running = true;
    m_request.startAlongside(
        [model, run, positions, threads](const auto& ticket) -> std::optional<std::vector<TokenPrediction>> {
            omp_set_num_threads(threads);
            // A few positions at a time, so a keystroke meanwhile waits for one chunk, not for all
            // of them (GPT-2 small at T = 1024: 79 GFLOP).
            constexpr size_t kChunk = 8;
            std::vector<TokenPrediction> predictions;
            for (size_t first = 0; first < positions.size(); first += kChunk) {
                if (ticket.isStale())
                    return std::nullopt;
                const std::vector<int> chunk(positions.begin() + first,
                                             positions.begin() + std::min(positions.size(), first + kChunk));
                auto predicted = model->model().predict(*run, chunk);
                if (!predicted)
                    break;
                predictions.insert(predictions.end(), predicted->begin(), predicted->end());
            }
            return predictions;
        },
        [this](std::vector<TokenPrediction> predictions) {
            m_running = false;
            m_predictions = std::move(predictions);
            m_ready();
        });
    return true;
}

}  // namespace attn
