#include "ui/controller/VariantPass.h"

#include "core/analysis/CompareData.h"
#include "core/model/ModelSession.h"
#include "core/pipeline/MemoryPlan.h"
#include "core/pipeline/ModelLayerResult.h"
#include "ui/controller/PassCost.h"
#include "ui/controller/PassLimits.h"
#include "ui/controller/PendingWeights.h"

#include <utility>

namespace attn {

VariantPass::VariantPass(QObject* owner, QThreadPool& pool, Answered answered)
    : m_job(owner, pool), m_answered(std::move(answered))
{
}

void VariantPass::request(const RunSettings& config, std::shared_ptr<const AttentionResult> base,
                          const QString& sentence, const SideA& side_a, const PassLimits& limits)
{
    Request job;
    job.config = config;
    job.base = std::move(base);
    job.sentence = sentence;
    if (side_a.model && side_a.run) {
        // Another layer of the run in hand: made from it on the worker, no forward pass.
        job.model = side_a.model;
        job.run = side_a.run;
        job.tokens = side_a.labels;
        start(job, limits.worker_threads);
        return;
    }
    if (std::optional<SettingError> invalid = config.validate()) {
        m_job.supersede();
        Outcome refused;
        refused.error = invalid->message;
        deliver(std::move(refused));
        return;
    }
    job.memory_budget = limits.memoryBudget();
    job.held_bytes = side_a.result ? heldBytes(*side_a.result) : 0;
    job.picture_cells = limits.picture_cells;
    job.long_route_bytes = limits.long_route_bytes;
    // B's own weights, else A's when B only changes what the weights do not depend on (causal).
    if (m_weights && m_weights_config.sameWeightsAs(config) && !m_pending) {
        job.weights = m_weights;
    } else if (side_a.weights && side_a.weights_config.sameWeightsAs(config)) {
        job.weights = side_a.weights;
    } else {
        if (!m_pending || !m_pending->config().sameWeightsAs(config))
            m_pending = std::make_shared<PendingWeights>(config, SettingField::Weights);
        job.pending = m_pending;
    }

    const double flops = passFlops(job.weights.get(), config, job.base ? job.base->seqLen() : 0);
    const bool reads_file = job.pending && job.pending->readsFile();
    if (!reads_file && flops <= limits.async_threshold) {
        deliver(m_job.computeNow([&job](const auto&) { return onOneCore([&job] { return run(job); }); }));
        return;
    }
    start(job, limits.worker_threads);
}

void VariantPass::start(const Request& request, int threads)
{
    m_running = true;
    m_job.start(withWorkerThreads(threads, [request] { return run(request); }),
                [this](Outcome outcome) { deliver(std::move(outcome)); });
}

VariantPass::Outcome VariantPass::run(const Request& job)
{
    Outcome outcome;
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

void VariantPass::deliver(Outcome outcome)
{
    if (outcome.pending && outcome.pending == m_pending) {
        m_pending.reset();
        if (auto ready = outcome.pending->get()) {  // kept for B's next results; a refusal is not
            m_weights = std::move(ready).value();
            m_weights_config = outcome.pending->config();
        }
    }
    m_running = false;
    m_answered(outcome.result, outcome.error);
}

}  // namespace attn
