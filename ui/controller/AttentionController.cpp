#include "ui/controller/AttentionController.h"

#include "core/model/ModelSession.h"
#include "core/pipeline/Examples.h"
#include "ui/controller/PassCost.h"
#include "ui/controller/PendingModel.h"
#include "ui/controller/PendingWeights.h"

#include <QCoreApplication>

#include <utility>

namespace attn {

AttentionController::AttentionController(QObject* parent)
    : QObject(parent),
      m_predictions(m_result_job,
                    [this] {
                        updateBusy();
                        emit modelPredictionsReady();
                    }),
      m_variant(this, m_pool, [this](std::shared_ptr<const AttentionResult> variant, const QString& error) {
          updateBusy();
          if (variant)
              emit variantReady(variant);
          else
              emit variantFailed(error);
      })
{
    m_pool.setMaxThreadCount(1);
}

AttentionController::~AttentionController()
{
    // Queued jobs skip themselves; the one running finishes, and nothing is delivered.
    m_result_job.supersede();
    m_file_job.supersede();
    m_variant.supersede();
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
    m_file_running = true;
    updateBusy();
    m_file_job.start(withWorkerThreads(m_limits.worker_threads,
                                       [pending = m_pending] {
                                           pending->get();  // read here; the GUI thread finds it read
                                           return pending;
                                       }),
                     [this](std::shared_ptr<PendingWeights> pending) { deliverFileForModel(pending); });
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
        // A pass still running for what was typed before would be drawn over the last result the
        // window says it shows, and clear this error: dropped (unless it brings a model or file).
        if (!m_pending_model && !(m_pending && m_pending->readsFile()))
            dropResultRequests();
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
    LayerPass::Request job;
    job.config = m_config;
    job.sentence = m_sentence;
    job.input = m_leave_example_with_load ? nullptr : m_example_input;
    job.kv_sentence = job.input ? QString() : m_kv_sentence;  // an example shows its own rows only
    job.memory_budget = memoryBudget();
    job.picture_cells = m_limits.picture_cells;
    if (m_result)
        job.held_bytes = heldBytes(*m_result);
    job.kept_head = m_limits.kept_head;
    job.long_route_bytes = m_limits.long_route_bytes;
    if (m_weights && m_weights_config.sameWeightsAs(m_config) && !m_pending) {
        job.weights = m_weights;
    } else {
        if (!m_pending || !m_pending->config().sameWeightsAs(m_config))
            m_pending = std::make_shared<PendingWeights>(m_config, SettingField::Weights);
        job.pending = m_pending;
    }

    const double flops = passFlops(job.weights.get(), m_config, job.seqLen());
    const bool reads_file = job.pending && job.pending->readsFile();
    m_predictions.drop();
    if (!reads_file && flops <= m_limits.async_threshold) {
        deliver(
            m_result_job.computeNow([&job](const auto&) { return onOneCore([&job] { return LayerPass::run(job); }); }));
        return;
    }
    m_result_running = true;
    updateBusy();
    m_result_job.start(withWorkerThreads(m_limits.workerThreadsFor(flops), [job] { return LayerPass::run(job); }),
                       [this](LayerPass::Outcome outcome) { deliver(std::move(outcome)); });
}

void AttentionController::dropResultRequests()
{
    m_result_job.supersede();  // the jobs still queued skip themselves
    m_predictions.drop();
    m_result_running = false;
    updateBusy();
}

void AttentionController::deliver(LayerPass::Outcome outcome)
{
    // Only the newest request's outcome comes here (m_result_job drops the others), but what
    // adopting its weights or folder announces may make a newer one.
    const quint64 generation = m_result_job.generation();
    if (outcome.pending && outcome.pending == m_pending && !adoptWeights(outcome))
        return;
    if (!m_result_job.isCurrent(generation))
        return;
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

bool AttentionController::adoptWeights(const LayerPass::Outcome& outcome)
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
        dropResultRequests();  // those still queued were for the file
    }
    return false;
}

void AttentionController::requestVariant(const RunSettings& config, std::shared_ptr<const AttentionResult> base,
                                         const QString& sentence)
{
    VariantPass::SideA side_a;
    side_a.weights = m_weights;
    side_a.weights_config = m_weights_config;
    if (m_model && m_model_run) {
        side_a.model = m_model;
        side_a.run = m_model_run;
        side_a.labels = m_model_labels;
    }
    side_a.result = m_result;
    m_variant.request(config, std::move(base), sentence, side_a, m_limits);
    updateBusy();
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
    const bool busy = m_result_running || m_variant.isRunning() || m_predictions.isRunning() || m_file_running;
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

void AttentionController::setTokenIdsInput(bool token_ids)
{
    if (token_ids == m_token_ids_input)
        return;
    m_token_ids_input = token_ids;
    m_result_outdated = true;
}

void AttentionController::openModel(const QString& dir, int layer)
{
    if (m_pending && (m_model || m_pending->readsFile())) {
        // A file still being read, to replace the model or the weights: the folder asked for since
        // wins, and the file's request with it (its outcome is never delivered).
        m_pending.reset();
        m_leave_example_with_load = false;
        setCurrentConfig(m_fallback_config);
    }
    m_pending_model = std::make_shared<PendingModel>(dir);
    m_layer = std::max(0, layer);
    if (!m_ablated.empty()) {
        m_ablated.clear();
        emit ablationChanged();
    }
    requestModel(true);
}

bool AttentionController::ablateHead(int layer, int head, HeadAblation mode)
{
    if (!m_model || layer < 0 || layer >= m_model->config().num_layers || head < 0 ||
        head >= m_model->config().num_heads)
        return false;
    std::vector<AblatedHead> ablated = m_ablated;
    const auto same = std::find_if(ablated.begin(), ablated.end(),
                                   [&](const AblatedHead& a) { return a.layer == layer && a.head == head; });
    if (same != ablated.end())
        same->mode = mode;
    else
        ablated.push_back({layer, head, mode});
    setAblated(std::move(ablated));
    return true;
}

void AttentionController::restoreHead(int layer, int head)
{
    std::vector<AblatedHead> ablated = m_ablated;
    std::erase_if(ablated, [&](const AblatedHead& a) { return a.layer == layer && a.head == head; });
    setAblated(std::move(ablated));
}

void AttentionController::restoreAllHeads()
{
    setAblated({});
}

void AttentionController::setAblated(std::vector<AblatedHead> ablated)
{
    if (ablated == m_ablated)
        return;
    m_ablated = std::move(ablated);
    emit ablationChanged();
    if (m_model)
        requestModel(true);
}

QString AttentionController::openingModelDir() const
{
    return m_pending_model ? m_pending_model->dir() : QString();
}

void AttentionController::closeModel()
{
    if (!modelInUse())
        return;
    m_model.reset();
    m_pending_model.reset();
    m_model_run.reset();
    m_model_tokens.clear();
    m_predictions.clear();
    m_layer = 0;
    if (!m_ablated.empty()) {
        m_ablated.clear();
        emit ablationChanged();
    }
    if (m_error_fields.erase(SettingField::Model) > 0)
        emit errorChanged(SettingField::Model, QString());
    emit modelClosed();
    m_result_outdated = true;
    request();  // the config's weights again
}

bool AttentionController::setLayer(int layer)
{
    const int layers = m_model ? m_model->config().num_layers : 0;
    if (!m_model || layer < 0 || layer >= layers) {
        reportError(SettingField::Layer,
                    m_model ? tr("layer %1 is out of range, the model has layers 0 to %2").arg(layer).arg(layers - 1)
                            : tr("no model is open"));
        return false;
    }
    if (m_error_fields.erase(SettingField::Layer) > 0)
        emit errorChanged(SettingField::Layer, QString());
    if (layer == m_layer)
        return true;
    m_layer = layer;
    emit layerChanged(layer);
    // A sentence typed since the run in hand (its pass perhaps still queued, and about to be
    // dropped as stale by this newer request) needs a pass; otherwise the run has every layer.
    requestModel(m_model_run == nullptr || m_pending_model != nullptr || m_result_outdated);
    return true;
}

void AttentionController::setKeepResidualStream(bool keep)
{
    if (keep == m_keep_residual_stream)
        return;
    m_keep_residual_stream = keep;
    // A run in hand without the stream is run again for the tab that reads it.
    if (keep && m_model && m_model_run && m_model_run->residual_stream.empty() && !m_pending_model)
        requestModel(true);
}

void AttentionController::requestModel(bool forward)
{
    ModelPass::Request job;
    job.model = m_model;
    job.pending = m_pending_model;
    job.sentence = m_sentence;
    job.token_ids_input = m_token_ids_input;
    job.layer = m_layer;
    job.keep_residual_stream = m_keep_residual_stream;
    job.ablated = m_ablated;
    if (!forward && !m_pending_model && m_model_run) {
        job.run = m_model_run;
        job.tokens = m_model_tokens;
        job.labels = m_model_labels;
    }
    startModelPass(job);
}

void AttentionController::showModelRun(std::shared_ptr<const ModelRun> run)
{
    if (!m_model || m_pending_model || !run)
        return;
    ModelPass::Request job;
    job.model = m_model;
    job.layer = m_layer;
    job.keep_residual_stream = m_keep_residual_stream;
    job.run = std::move(run);
    job.tokens = m_model->tokenTexts(job.run->token_ids);
    job.labels = m_model->tokenLabels(job.tokens);
    job.adopt_run = true;
    startModelPass(job);
}

void AttentionController::startModelPass(const ModelPass::Request& job)
{
    m_predictions.drop();
    m_result_running = true;
    updateBusy();
    m_result_job.start(withWorkerThreads(m_limits.worker_threads, [job] { return ModelPass::run(job); }),
                       [this](ModelPass::Outcome outcome) { deliverModel(std::move(outcome)); });
}

void AttentionController::deliverModel(ModelPass::Outcome outcome)
{
    // Only the newest request's outcome comes here (m_result_job drops the others), but what
    // adopting its weights or folder announces may make a newer one.
    const quint64 generation = m_result_job.generation();
    if (outcome.pending && outcome.pending == m_pending_model && !adoptModel())
        return;
    if (!m_result_job.isCurrent(generation))
        return;
    m_result_running = false;
    updateBusy();
    if (!outcome.error.isEmpty()) {
        // A refusal of the sentence read as text is no longer true once it is read as ids (or back).
        if (outcome.error_field != SettingField::Sentence || outcome.token_ids_input == m_token_ids_input)
            reportError(outcome.error_field, outcome.error);
        return;
    }
    if (outcome.model != m_model)
        return;  // a model closed or replaced since
    m_result = outcome.result;
    m_result_outdated = false;
    if (m_error_fields.erase(SettingField::Sentence) > 0)
        emit errorChanged(SettingField::Sentence, QString());
    const bool new_run = outcome.ran_forward || outcome.adopted_run;
    if (new_run) {
        if (outcome.ran_forward)
            ++m_forward_passes;
        m_model_run_given = outcome.adopted_run;
        m_model_run = outcome.run;
        m_model_tokens = outcome.tokens;
        m_model_labels = outcome.labels;
        m_predictions.clear();
    }
    emit resultReady(m_result);
    if (new_run)
        emit modelRunReady(m_model_run, m_model_tokens);
    // The run's predictions, or again after a layer chosen cut them short; each position costs
    // V x C multiply-adds (GPT-2 small: 39 M): after the result, on the worker.
    if (m_predictions.predictions().empty() && m_predictions.start(m_model, m_model_run, m_limits.worker_threads))
        updateBusy();
}

bool AttentionController::adoptModel()
{
    const std::shared_ptr<PendingModel> pending = std::move(m_pending_model);
    auto read = pending->get();  // already read: returns at once
    if (read) {
        m_model = std::move(read).value();
        m_model_run.reset();
        m_model_tokens.clear();
        m_predictions.clear();
        if (m_error_fields.erase(SettingField::Model) > 0)
            emit errorChanged(SettingField::Model, QString());
        const int layers = m_model->config().num_layers;
        const int asked_layer = m_layer;
        if (m_layer >= layers)
            m_layer = 0;
        emit modelOpened(m_model->dir());
        emit layerChanged(m_layer);
        if (asked_layer >= layers)
            reportError(SettingField::Layer,
                        tr("layer %1 is out of range, the model has layers 0 to %2; showing layer 0")
                            .arg(asked_layer)
                            .arg(layers - 1));
        return true;
    }
    // A folder that cannot be read: the model (or the weights) in use stay.
    reportError(SettingField::Model, read.error());
    if (!m_model) {
        m_layer = 0;
        if (!m_result || m_result_outdated) {
            request();  // what was typed meanwhile, under the weights in use
            return false;
        }
    } else if (!m_model_run || m_result_outdated) {
        requestModel(true);
        return false;
    }
    dropResultRequests();  // those still queued were for the folder
    return false;
}

}  // namespace attn
