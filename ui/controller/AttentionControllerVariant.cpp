// AttentionController, continued: Compare's side B, the same input under other settings or
// another layer of a whole model. Split from AttentionController.cpp to keep each file small.
#include "ui/controller/AttentionController.h"

#include "core/analysis/CompareData.h"
#include "core/model/ModelSession.h"
#include "core/pipeline/MemoryPlan.h"
#include "core/pipeline/ModelLayerResult.h"
#include "ui/controller/PassCost.h"
#include "ui/controller/PendingWeights.h"
#include "ui/controller/WorkerHandOff.h"

#include <utility>

namespace attn {

struct AttentionController::VariantJob {
    quint64 generation = 0;
    std::shared_ptr<std::atomic<quint64>> latest;
    RunSettings config;
    std::shared_ptr<const AttentionResult> base;
    QString sentence;
    std::int64_t memory_budget = 0;
    std::int64_t held_bytes = 0;  // side A's result, on screen beside B
    std::int64_t picture_cells = 0;  // as A's pass: a long input's B takes the long route
    std::int64_t long_route_bytes = 0;
    std::shared_ptr<const LoadedWeights> weights;
    std::shared_ptr<PendingWeights> pending;
    // A whole model: side B is another layer of this run.
    std::shared_ptr<const ModelSession> model;
    std::shared_ptr<const ModelRun> run;
    QStringList tokens;  // as the views label them
};

struct AttentionController::VariantOutcome {
    quint64 generation = 0;
    bool skipped = false;
    std::shared_ptr<PendingWeights> pending;
    std::shared_ptr<const AttentionResult> result;
    QString error;
};

void AttentionController::requestVariant(const RunSettings& config, std::shared_ptr<const AttentionResult> base,
                                         const QString& sentence)
{
    VariantJob job;
    job.generation = m_variant_latest->fetch_add(1) + 1;
    job.latest = m_variant_latest;
    job.config = config;
    job.base = std::move(base);
    job.sentence = sentence;
    if (m_model && m_model_run) {
        // Another layer of the run in hand: made from it on the worker, no forward pass.
        job.model = m_model;
        job.run = m_model_run;
        job.tokens = m_model_labels;
        m_variant_running = true;
        updateBusy();
        startOnWorker(
            m_pool, this, m_worker_threads, [job] { return runVariantJob(job); },
            [this](VariantOutcome outcome) { deliverVariant(std::move(outcome)); });
        return;
    }
    if (std::optional<SettingError> invalid = config.validate()) {
        VariantOutcome refused;
        refused.generation = job.generation;
        refused.error = invalid->message;
        deliverVariant(std::move(refused));
        return;
    }
    job.memory_budget = memoryBudget();
    job.held_bytes = m_result ? heldBytes(*m_result) : 0;
    job.picture_cells = m_picture_cells;
    job.long_route_bytes = m_long_route_bytes;
    // B's own weights, else A's when B only changes what the weights do not depend on (causal).
    if (m_variant_weights && m_variant_weights_config.sameWeightsAs(config) && !m_variant_pending) {
        job.weights = m_variant_weights;
    } else if (m_weights && m_weights_config.sameWeightsAs(config)) {
        job.weights = m_weights;
    } else {
        if (!m_variant_pending || !m_variant_pending->config().sameWeightsAs(config))
            m_variant_pending = std::make_shared<PendingWeights>(config, SettingField::Weights);
        job.pending = m_variant_pending;
    }

    const double flops = passFlops(job.weights.get(), config, job.base ? job.base->seqLen() : 0);
    const bool reads_file = job.pending && job.pending->readsFile();
    if (!reads_file && flops <= m_async_threshold) {
        deliverVariant(onOneCore([&job] { return runVariantJob(job); }));
        return;
    }
    m_variant_running = true;
    updateBusy();
    startOnWorker(
        m_pool, this, m_worker_threads, [job] { return runVariantJob(job); },
        [this](VariantOutcome outcome) { deliverVariant(std::move(outcome)); });
}

AttentionController::VariantOutcome AttentionController::runVariantJob(const VariantJob& job)
{
    VariantOutcome outcome;
    outcome.generation = job.generation;
    if (job.generation != job.latest->load()) {
        outcome.skipped = true;
        return outcome;
    }
    if (!job.base) {
        outcome.error = tr("there is no result to compare with");
        return outcome;
    }
    if (job.model) {
        auto layer =
            ModelLayerResult::make(job.model->model(), job.model->dir(), *job.run, job.tokens, job.config.layer,
                                   traceDetailFor(job.run->seqLen(), job.model->config().num_heads));
        if (!layer) {
            outcome.error = layer.error();
            return outcome;
        }
        outcome.result = std::make_shared<const AttentionResult>(std::move(layer).value());
        return outcome;
    }
    std::shared_ptr<const LoadedWeights> weights = job.weights;
    if (!weights) {
        outcome.pending = job.pending;
        auto ready = job.pending->get();
        if (!ready) {
            outcome.error = ready.error();
            return outcome;
        }
        weights = std::move(ready).value();
    }
    // Planned before it is computed, as A's pass is, beside A's result on screen: B keeps every
    // head's weights (Compare's figure and metrics read them), or for a long input takes the long
    // route as A does (one head kept, the others recomputed by Compare's workers).
    MemoryRequest need = MemoryPlan::forPass(job.base->seqLen(), job.base->isCross() ? job.base->keyLen() : 0,
                                             weights->weights, TraceDetail::Probabilities);
    need.held = job.held_bytes;
    const int block_factor = planLongRoute(need, job.base->seqLen(), job.base->keyLen(), weights->weights.num_heads,
                                             job.picture_cells, job.long_route_bytes);
    if (Status fits = MemoryPlan::check(need, job.memory_budget); !fits) {
        outcome.error = tr("%1 (Settings › Memory budget)").arg(fits.error());
        return outcome;
    }
    auto variant = CompareData::runVariant(*job.base, job.config, *weights, job.sentence, block_factor);
    if (!variant) {
        outcome.error = variant.error();
        return outcome;
    }
    outcome.result = std::make_shared<const AttentionResult>(std::move(variant).value());
    return outcome;
}

void AttentionController::deliverVariant(VariantOutcome outcome)
{
    if (outcome.pending && outcome.pending == m_variant_pending) {
        m_variant_pending.reset();
        if (auto ready = outcome.pending->get()) {  // kept for B's next results; a refusal is not
            m_variant_weights = std::move(ready).value();
            m_variant_weights_config = outcome.pending->config();
        }
    }
    if (outcome.generation != m_variant_latest->load() || outcome.generation <= m_variant_delivered)
        return;
    m_variant_delivered = outcome.generation;
    m_variant_running = false;
    updateBusy();
    if (outcome.result)
        emit variantReady(outcome.result);
    else
        emit variantFailed(outcome.error);
}

}  // namespace attn
