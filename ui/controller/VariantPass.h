#pragma once

#include "core/model/ModelRun.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "core/weights/LoadedWeights.h"
#include "ui/workers/LatestJob.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <memory>

namespace attn {

class ModelSession;
class PendingWeights;
struct PassLimits;

// Side B of the compare view: side A's input under other settings, or another layer of a whole
// model's run. Its requests have their own generations (a new side B does not drop side A's
// result, nor the reverse), and it keeps its own weights, so a file is read once, not once per
// result.
class VariantPass {
    Q_DECLARE_TR_FUNCTIONS(VariantPass)

public:
    // What side A has that side B may use: the weights in use, and a whole model's run.
    struct SideA {
        std::shared_ptr<const LoadedWeights> weights;
        RunSettings weights_config;
        std::shared_ptr<const ModelSession> model;
        std::shared_ptr<const ModelRun> run;
        QStringList labels;                             // the run's tokens as the views label them
        std::shared_ptr<const AttentionResult> result;  // on screen beside B
    };

    // `answered` gets the newest request's result, or why there is none (a null result), on
    // `owner`'s thread.
    using Answered = std::function<void(std::shared_ptr<const AttentionResult> result, const QString& error)>;
    VariantPass(QObject* owner, QThreadPool& pool, Answered answered);

    void request(const RunSettings& config, std::shared_ptr<const AttentionResult> base, const QString& sentence,
                 const SideA& side_a, const PassLimits& limits);
    bool isRunning() const { return m_running; }
    void supersede() { m_job.supersede(); }

private:
    struct Request {
        RunSettings config;
        std::shared_ptr<const AttentionResult> base;
        QString sentence;
        std::int64_t memory_budget = 0;
        std::int64_t held_bytes = 0;     // side A's result, on screen beside B
        std::int64_t picture_cells = 0;  // as A's pass: a long input's B takes the long route
        std::int64_t long_route_bytes = 0;
        std::shared_ptr<const LoadedWeights> weights;
        std::shared_ptr<PendingWeights> pending;
        // A whole model: side B is another layer of this run.
        std::shared_ptr<const ModelSession> model;
        std::shared_ptr<const ModelRun> run;
        QStringList tokens;  // as the views label them
    };
    struct Outcome {
        std::shared_ptr<PendingWeights> pending;
        std::shared_ptr<const AttentionResult> result;
        QString error;
    };
    static Outcome run(const Request& request);
    void start(const Request& request, int threads);
    void deliver(Outcome outcome);

    LatestJob m_job;
    Answered m_answered;
    bool m_running = false;
    std::shared_ptr<const LoadedWeights> m_weights;
    RunSettings m_weights_config;
    std::shared_ptr<PendingWeights> m_pending;
};

}  // namespace attn
