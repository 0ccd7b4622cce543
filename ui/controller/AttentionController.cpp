#include "ui/controller/AttentionController.h"

#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/Examples.h"
#include "core/pipeline/MemoryPlan.h"
#include "core/text/WordSplitter.h"
#include "ui/controller/PassCost.h"
#include "ui/controller/PendingModel.h"
#include "ui/controller/PendingWeights.h"
#include "ui/controller/WorkerHandOff.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QMetaObject>

#include <omp.h>

#include <cmath>
#include <limits>
#include <utility>

namespace attn {

// What a worker needs, copied so the GUI thread may change its state meanwhile.
struct AttentionController::Job {
    quint64 generation = 0;
    std::shared_ptr<std::atomic<quint64>> latest;
    RunSettings config;
    QString sentence;
    QString kv_sentence;  // cross-attention: keys and values from this sentence; empty = self-attention
    std::shared_ptr<const LoadedWeights> weights;  // ready; else built or read through `pending`
    std::shared_ptr<PendingWeights> pending;
    std::shared_ptr<const AttentionInput> input;  // an example's rows; null: from the sentence
    std::int64_t memory_budget = 0;
    std::int64_t picture_cells = 0;  // what one heatmap holds at most (MemoryRequest::picture_cells)
    std::int64_t held_bytes = 0;     // the result on screen, kept until this one replaces it
    int kept_head = 0;               // a long input's head whose weights are kept (blockFactorFor)
    std::int64_t long_route_bytes = 0;
};

struct AttentionController::Outcome {
    quint64 generation = 0;
    bool skipped = false;                     // a newer request arrived before this one started
    std::shared_ptr<PendingWeights> pending;  // the weights this job built or read, or failed to
    std::shared_ptr<const AttentionResult> result;
    SettingField error_field = SettingField::Sentence;
    QString error;
};

AttentionController::AttentionController(QObject* parent) : QObject(parent)
{
    // One worker: requests queue behind each other and stale ones are skipped when they start.
    m_pool.setMaxThreadCount(1);
    m_worker_threads = std::clamp(omp_get_num_procs() - 1, 1, std::max(1, omp_get_max_threads()));
}

int AttentionController::workerThreadsFor(double flops) const
{
    // A pass of seconds (a long input) takes every core: the GUI thread has little to do until
    // its result arrives, and the first picture of 8,192 tokens x 12 heads came 1.6 times sooner
    // on two cores than on one. Shorter passes leave a core to the GUI, as typing wants.
    if (flops >= kAllCoresFlops && !m_worker_threads_chosen)
        return std::max(1, std::min(omp_get_num_procs(), omp_get_max_threads()));
    return m_worker_threads;
}

AttentionController::~AttentionController()
{
    m_latest->store(std::numeric_limits<quint64>::max());  // queued jobs skip themselves
    m_variant_latest->store(std::numeric_limits<quint64>::max());
    m_pool.clear();
    m_pool.waitForDone();
}

std::int64_t AttentionController::defaultMemoryBudget()
{
    return MemoryPlan::defaultBudget();
}

double AttentionController::estimatedFlops(int seq_len, int input_dim, int d_model, int output_dim)
{
    const double t = seq_len;
    return 2.0 * t * input_dim * 3.0 * d_model  // Q, K, V projections
           + 4.0 * t * t * d_model              // scores and weighted values
           + 2.0 * t * d_model * output_dim;    // output projection
}

bool AttentionController::isLoadingWeightFile() const
{
    return m_pending && m_pending->readsFile();
}

bool AttentionController::setConfig(const RunSettings& config)
{
    if (std::optional<SettingError> invalid = config.validate()) {
        reportError(invalid->field, invalid->message);
        return false;
    }
    if (modelInUse()) {
        // A weight file replaces the model once it is read (a refused one leaves the model);
        // other settings are kept for when the model is closed: a model defines its own.
        if (config.weight_source == RunSettings::WeightSource::File && m_model && !m_pending_model)
            return readFileForModel(config);
        setCurrentConfig(config);
        return true;
    }
    const bool from_file = config.weight_source == RunSettings::WeightSource::File;
    const bool leaves_example = showsExample() && (!from_file || config.weights_file != m_example_weights_file);
    const bool weights_in_use = m_weights && m_weights_config.sameWeightsAs(config);
    if (from_file && !weights_in_use) {
        // A file to read, on the worker; the weights in use and their result stay until it is read.
        if (!m_pending || !m_pending->config().sameWeightsAs(config)) {
            const bool only_layer =
                m_weights_config.weights_file == config.weights_file && m_weights_config.layer != config.layer;
            m_pending =
                std::make_shared<PendingWeights>(config, only_layer ? SettingField::Layer : SettingField::Weights);
        }
        m_leave_example_with_load = leaves_example;
        setCurrentConfig(config);
        request();
        return true;
    }
    if (m_pending && !m_pending->config().sameWeightsAs(config)) {
        m_pending.reset();  // weights no longer wanted: whatever they become is dropped
        m_leave_example_with_load = false;
    }
    if (leaves_example)
        leaveExample();  // other weights: back to the sentence
    setCurrentConfig(config);
    m_fallback_config = config;
    clearErrors();
    request();
    return true;
}

bool AttentionController::readFileForModel(const RunSettings& config)
{
    if (m_weights && m_weights_config.sameWeightsAs(config)) {
        closeModel();  // the file's weights are in use already
        return setConfig(config);
    }
    if (!m_pending || !m_pending->config().sameWeightsAs(config))
        m_pending = std::make_shared<PendingWeights>(config, SettingField::Weights);
    setCurrentConfig(config);
    struct FileOutcome {
        bool skipped = false;
        std::shared_ptr<PendingWeights> pending;
    };
    m_file_running = true;
    updateBusy();
    startOnWorker(
        m_pool, this, m_worker_threads,
        [pending = m_pending] {
            pending->get();  // read here; the GUI thread finds it read
            return FileOutcome{false, pending};
        },
        [this](FileOutcome outcome) { deliverFileForModel(outcome.pending); });
    return true;
}

void AttentionController::deliverFileForModel(const std::shared_ptr<PendingWeights>& pending)
{
    m_file_running = false;
    updateBusy();
    if (pending != m_pending || !m_model)
        return;  // another file, folder or the model's closing came since
    if (auto ready = pending->get(); !ready) {
        m_pending.reset();
        setCurrentConfig(m_fallback_config);
        reportError(pending->errorField(), ready.error());
        return;
    }
    closeModel();  // its request() adopts the file's weights, read already, and reports them
}

bool AttentionController::setExample(const Example& example)
{
    if (modelInUse()) {
        m_model.reset();
        m_pending_model.reset();
        m_model_run.reset();
        emit modelClosed();
    }
    m_pending.reset();
    m_leave_example_with_load = false;
    m_weights = std::make_shared<const LoadedWeights>(example.weights);
    m_weights_config = example.config;
    m_example_weights_file = example.config.weights_file;
    const bool was_active = showsExample();
    m_example_input = std::make_shared<const AttentionInput>(example.input);
    m_result_outdated = true;
    emit weightsChanged(QStringLiteral("%1 (%2)").arg(example.title, m_weights->scheme));
    if (!was_active)
        emit exampleActiveChanged(true);
    setCurrentConfig(example.config);
    m_fallback_config = example.config;
    clearErrors();
    request();
    return true;
}

void AttentionController::leaveExample()
{
    m_example_input.reset();
    m_result_outdated = true;
    emit exampleActiveChanged(false);
}

bool AttentionController::setSentence(const QString& sentence)
{
    presetSentence(sentence);
    if (showsExample())
        leaveExample();
    if (sentence.trimmed().isEmpty()) {
        reportError(SettingField::Sentence,
                    m_token_ids_input && modelInUse() ? tr("type token ids, e.g. 1, 2, 3") : tr("type a sentence"));
        return false;
    }
    if (modelInUse())
        requestModel(true);
    else
        request();
    return true;
}

bool AttentionController::setKvSentence(const QString& sentence)
{
    if (sentence == m_kv_sentence)
        return true;
    m_kv_sentence = sentence;
    m_result_outdated = true;
    if (showsExample() || modelInUse())
        return true;  // kept for when the sentence comes back
    request();
    return true;
}

void AttentionController::presetKvSentence(const QString& sentence)
{
    m_kv_sentence = sentence;
    m_result_outdated = true;
}

void AttentionController::presetSentence(const QString& sentence)
{
    m_sentence = sentence;
    m_result_outdated = true;
}

void AttentionController::setCurrentConfig(const RunSettings& config)
{
    if (config == m_config)
        return;
    m_config = config;
    emit configChanged(m_config);
}

void AttentionController::request()
{
    Job job;
    job.generation = m_latest->fetch_add(1) + 1;
    job.latest = m_latest;
    job.config = m_config;
    job.sentence = m_sentence;
    job.input = m_leave_example_with_load ? nullptr : m_example_input;
    job.kv_sentence = job.input ? QString() : m_kv_sentence;  // an example shows its own rows only
    job.memory_budget = memoryBudget();
    job.picture_cells = m_picture_cells;
    if (m_result)
        job.held_bytes = heldBytes(*m_result);
    job.kept_head = m_kept_head;
    job.long_route_bytes = m_long_route_bytes;
    if (m_weights && m_weights_config.sameWeightsAs(m_config) && !m_pending) {
        job.weights = m_weights;
    } else {
        if (!m_pending || !m_pending->config().sameWeightsAs(m_config))
            m_pending = std::make_shared<PendingWeights>(m_config, SettingField::Weights);
        job.pending = m_pending;
    }

    const int seq_len = job.input ? int(job.input->tokens.size()) : int(WordSplitter::split(m_sentence).size());
    const double flops = passFlops(job.weights.get(), m_config, seq_len);
    const bool reads_file = job.pending && job.pending->readsFile();
    if (!reads_file && flops <= m_async_threshold) {
        deliver(onOneCore([&job] { return runJob(job); }));
        return;
    }
    m_result_running = true;
    updateBusy();
    startOnWorker(
        m_pool, this, workerThreadsFor(flops), [job] { return runJob(job); },
        [this](Outcome outcome) { deliver(std::move(outcome)); });
}

AttentionController::Outcome AttentionController::runJob(const Job& job)
{
    Outcome outcome;
    outcome.generation = job.generation;
    if (job.generation != job.latest->load()) {
        outcome.skipped = true;
        return outcome;
    }
    std::shared_ptr<const LoadedWeights> weights = job.weights;
    if (!weights) {
        outcome.pending = job.pending;
        auto ready = job.pending->get();
        if (!ready) {
            outcome.error_field = job.pending->errorField();
            outcome.error = ready.error();
            return outcome;
        }
        weights = std::move(ready).value();
    }
    // The weights fix the dimensions (a file may differ from the panel's numbers).
    RunSettings effective = job.config;
    effective.d_model = weights->weights.dModel();
    effective.num_heads = weights->weights.num_heads;
    effective.input_dim = weights->weights.inputDim();
    TokenList tokens = job.input ? job.input->tokens : WordSplitter::split(job.sentence);
    if (tokens.isEmpty()) {
        outcome.error_field = SettingField::Sentence;
        outcome.error = tr("the sentence has no tokens");
        return outcome;
    }
    TokenList kv_tokens;  // none: self-attention
    if (!job.kv_sentence.trimmed().isEmpty()) {
        if (effective.causal) {
            outcome.error_field = SettingField::KvSentence;
            outcome.error = tr("the causal mask needs self-attention: switch it off (Ctrl+M) or clear this field");
            return outcome;
        }
        kv_tokens = WordSplitter::split(job.kv_sentence);
    }
    const qint64 seq_len = tokens.size();
    const qint64 key_len = kv_tokens.isEmpty() ? seq_len : kv_tokens.size();
    const TraceDetail detail = traceDetailFor(seq_len, effective.num_heads, key_len);
    // Planned before anything of T_q x T_kv size exists: the pass, the grid's heatmaps and the
    // head view's (each reduced to at most picture_cells), Compare's A, B and A - B.
    MemoryRequest need =
        MemoryPlan::forPass(int(seq_len), kv_tokens.isEmpty() ? 0 : int(key_len), weights->weights, detail);
    need.view_copies = weights->weights.num_heads + 1;
    need.view_cells = job.picture_cells;
    need.held = job.held_bytes;
    need.masked = effective.causal || !effective.padded_keys.isEmpty();
    // A long input: every head reduced to its picture as it is computed, one head's weights kept.
    const int block_factor = planLongRoute(need, int(seq_len), int(key_len), effective.num_heads, job.picture_cells,
                                             job.long_route_bytes);
    const int kept_head = std::clamp(job.kept_head, 0, std::max(0, effective.num_heads - 1));
    if (Status fits = MemoryPlan::check(need, job.memory_budget); !fits) {
        outcome.error_field = SettingField::Sentence;
        outcome.error = tr("%1 (Settings › Memory budget)").arg(fits.error());
        return outcome;
    }
    AttentionInput input = job.input ? *job.input : AttentionPipeline::inputFromTokens(std::move(tokens), effective);
    AttentionInput kv_input;  // no tokens: self-attention
    if (!kv_tokens.isEmpty())
        kv_input = AttentionPipeline::inputFromTokens(std::move(kv_tokens), effective);
    // Padded positions the keys do not reach are kept in the config (they come back when the
    // sentence grows again) but only the keys that exist are padded.
    effective.padded_keys.removeIf([key_len](int key) { return key < 0 || key >= key_len; });
    auto result = AttentionPipeline::run(effective, std::move(input), std::move(kv_input), *weights, detail,
                                         block_factor, kept_head);
    if (!result) {
        outcome.error_field = SettingField::Sentence;
        outcome.error = result.error();
        return outcome;
    }
    outcome.result = std::make_shared<const AttentionResult>(std::move(result).value());
    return outcome;
}

void AttentionController::deliver(Outcome outcome)
{
    if (outcome.pending && outcome.pending == m_pending && !adoptWeights(outcome))
        return;
    if (outcome.generation != m_latest->load() || outcome.generation <= m_delivered)
        return;  // a newer request is on its way: this result is stale
    m_delivered = outcome.generation;
    m_result_running = false;
    updateBusy();
    if (!outcome.error.isEmpty()) {
        reportError(outcome.error_field, outcome.error);
        return;
    }
    m_result = outcome.result;
    m_result_outdated = false;
    for (SettingField field : {SettingField::Sentence, SettingField::KvSentence})
        if (m_error_fields.erase(field) > 0)
            emit errorChanged(field, QString());
    emit resultReady(m_result);
}

bool AttentionController::adoptWeights(const Outcome& outcome)
{
    const std::shared_ptr<PendingWeights> pending = std::move(m_pending);
    auto ready = pending->get();  // already built or read: returns at once
    if (ready) {
        m_weights = std::move(ready).value();
        m_weights_config = pending->config();
        m_fallback_config = m_config;
        if (pending->readsFile()) {
            if (std::exchange(m_leave_example_with_load, false) && showsExample())
                leaveExample();
            clearErrors();
        }
        emit weightsChanged(outcome.result ? outcome.result->weights_description : m_weights->scheme);
        if (pending->readsFile())
            emit weightsFileLoaded(pending->config().weights_file);
        return true;
    }
    if (!pending->readsFile())
        return true;  // generated weights that could not be built: reported as the result's error
    // A file that cannot be read: back to the config whose weights are still in use.
    m_leave_example_with_load = false;
    setCurrentConfig(m_fallback_config);
    reportError(pending->errorField(), ready.error());
    if (!m_result || m_result_outdated) {
        request();  // what was typed while the file was read, under the weights in use
    } else {
        m_delivered = m_latest->fetch_add(1) + 1;  // the jobs still queued for the file skip themselves
        m_result_running = false;
        updateBusy();
    }
    return false;
}

void AttentionController::waitForIdle()
{
    while (m_busy) {
        m_pool.waitForDone();
        QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    }
}

void AttentionController::updateBusy()
{
    const bool busy = m_result_running || m_variant_running || m_predictions_running || m_file_running;
    if (busy == m_busy)
        return;
    m_busy = busy;
    emit busyChanged(busy);
}

void AttentionController::reportError(SettingField field, const QString& message)
{
    m_error_fields.insert(field);
    emit errorChanged(field, message);
}

void AttentionController::clearErrors()
{
    // The sentence's error is cleared by its next result; config errors by an accepted config.
    const std::set<SettingField> fields = m_error_fields;
    for (SettingField field : fields) {
        if (field == SettingField::Sentence || field == SettingField::KvSentence || field == SettingField::Model)
            continue;
        m_error_fields.erase(field);
        emit errorChanged(field, QString());
    }
}

}  // namespace attn
