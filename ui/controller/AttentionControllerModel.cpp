// AttentionController, continued: whole models (a Hugging Face folder). Split from
// AttentionController.cpp to keep each file small.
#include "ui/controller/AttentionController.h"

#include "core/model/TokenIdList.h"
#include "core/model/TransformerForward.h"
#include "core/pipeline/ModelLayerResult.h"
#include "ui/controller/PendingModel.h"
#include "ui/controller/WorkerHandOff.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <utility>

namespace attn {

// What a model job needs, copied so the GUI thread may change its state meanwhile.
struct AttentionController::ModelJob {
    quint64 generation = 0;
    std::shared_ptr<std::atomic<quint64>> latest;
    std::shared_ptr<const ModelSession> model;  // ready; else read through `pending`
    std::shared_ptr<PendingModel> pending;
    QString sentence;
    bool token_ids_input = false;  // the sentence is a list of token ids (TokenIdList), not text
    int layer = 0;
    std::shared_ptr<const ModelRun> run;  // the run to take the layer from; null: a forward pass
    QStringList tokens;                   // the run's tokens
    QStringList labels;                   // and as the views label them
};

struct AttentionController::ModelOutcome {
    quint64 generation = 0;
    bool skipped = false;
    std::shared_ptr<PendingModel> pending;  // the folder this job read, or failed to
    std::shared_ptr<const ModelSession> model;
    std::shared_ptr<const ModelRun> run;
    QStringList tokens;  // as convert_ids_to_tokens spells them
    QStringList labels;  // as the views label them (TokenPiece::label)
    bool ran_forward = false;
    std::shared_ptr<const AttentionResult> result;
    SettingField error_field = SettingField::Sentence;
    QString error;
    bool token_ids_input = false;  // the job's reading of the sentence
};

struct AttentionController::PredictionOutcome {
    quint64 generation = 0;
    bool skipped = false;
    std::vector<TokenPrediction> predictions;
};

namespace {

// The ids the model runs on: the typed ids as they are, or the sentence through the tokenizer
// (ModelSession::encode, whose refusal without a tokenizer names the reason: no files, or the
// file that cannot be read).
Result<std::vector<int>> inputIds(const ModelSession& model, const QString& sentence, bool token_ids_input)
{
    if (token_ids_input)
        return TokenIdList::parse(sentence);
    auto ids = model.encode(sentence);
    if (!ids && !model.tokenizer())
        return Error{AttentionController::tr("%1: %2: choose Token ids beside the field and type ids")
                         .arg(QFileInfo(model.dir()).fileName(), ids.error())};
    return ids;
}

}  // namespace

void AttentionController::setTokenIdsInput(bool token_ids)
{
    if (token_ids == m_token_ids_input)
        return;
    m_token_ids_input = token_ids;
    m_result_outdated = true;
}

void AttentionController::openModel(const QString& dir, int layer)
{
    if (m_pending && m_model) {  // a file that was to replace the model: the folder asked for since wins
        m_pending.reset();
        setCurrentConfig(m_fallback_config);
    }
    m_pending_model = std::make_shared<PendingModel>(dir);
    m_layer = std::max(0, layer);
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
    m_model_predictions.clear();
    m_layer = 0;
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

void AttentionController::requestModel(bool forward)
{
    ModelJob job;
    job.generation = m_latest->fetch_add(1) + 1;
    job.latest = m_latest;
    job.model = m_model;
    job.pending = m_pending_model;
    job.sentence = m_sentence;
    job.token_ids_input = m_token_ids_input;
    job.layer = m_layer;
    if (!forward && !m_pending_model && m_model_run) {
        job.run = m_model_run;
        job.tokens = m_model_tokens;
        job.labels = m_model_labels;
    }
    m_result_running = true;
    updateBusy();
    startOnWorker(
        m_pool, this, m_worker_threads, [job] { return runModelJob(job); },
        [this](ModelOutcome outcome) { deliverModel(std::move(outcome)); });
}

AttentionController::ModelOutcome AttentionController::runModelJob(const ModelJob& job)
{
    ModelOutcome outcome;
    outcome.generation = job.generation;
    outcome.token_ids_input = job.token_ids_input;
    if (job.generation != job.latest->load()) {
        outcome.skipped = true;
        return outcome;
    }
    std::shared_ptr<const ModelSession> model = job.model;
    if (job.pending) {
        outcome.pending = job.pending;
        auto read = job.pending->get();
        if (!read) {
            outcome.error_field = SettingField::Model;
            outcome.error = read.error();
            return outcome;
        }
        model = std::move(read).value();
    }
    outcome.model = model;
    const ModelConfig& config = model->config();
    const int layer = job.layer < config.num_layers ? job.layer : 0;  // adoptModel reports a layer out of range

    QElapsedTimer timer;
    timer.start();
    std::shared_ptr<const ModelRun> run = job.run;
    outcome.tokens = job.tokens;
    outcome.labels = job.labels;
    if (!run) {
        const auto input = inputIds(*model, job.sentence, job.token_ids_input);
        if (!input) {
            outcome.error = input.error();
            return outcome;
        }
        const std::vector<int>& ids = input.value();
        if (Status fits = TransformerForward::checkInput(config, ids, layer); !fits) {
            outcome.error = fits.error();
            return outcome;
        }
        auto forward = model->forwardWithCache(ids, layer);
        if (!forward) {
            outcome.error_field = SettingField::Model;
            outcome.error = QStringLiteral("%1: %2").arg(model->dir(), forward.error());
            return outcome;
        }
        run = std::move(forward).value();
        outcome.ran_forward = true;
        outcome.tokens = model->tokenTexts(ids);
        outcome.labels = model->tokenLabels(outcome.tokens);
    }
    outcome.run = run;
    auto result = ModelLayerResult::make(model->model(), model->dir(), *run, outcome.labels, layer,
                                         traceDetailFor(run->seqLen(), config.num_heads));
    if (!result) {
        outcome.error_field = SettingField::Layer;
        outcome.error = result.error();
        return outcome;
    }
    result->compute_ms = double(timer.nsecsElapsed()) / 1e6;
    outcome.result = std::make_shared<const AttentionResult>(std::move(result).value());
    return outcome;
}

void AttentionController::deliverModel(ModelOutcome outcome)
{
    if (outcome.pending && outcome.pending == m_pending_model && !adoptModel())
        return;
    if (outcome.generation != m_latest->load() || outcome.generation <= m_delivered)
        return;  // a newer request is on its way
    m_delivered = outcome.generation;
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
    if (outcome.ran_forward) {
        ++m_forward_passes;
        m_model_run = outcome.run;
        m_model_tokens = outcome.tokens;
        m_model_labels = outcome.labels;
        m_model_predictions.clear();
    }
    emit resultReady(m_result);
    if (outcome.ran_forward)
        emit modelRunReady(m_model_run, m_model_tokens);
    if (m_model_predictions.empty())
        requestPredictions();  // the run's, or again after a layer chosen cut them short
}

bool AttentionController::adoptModel()
{
    const std::shared_ptr<PendingModel> pending = std::move(m_pending_model);
    auto read = pending->get();  // already read: returns at once
    if (read) {
        m_model = std::move(read).value();
        m_model_run.reset();
        m_model_tokens.clear();
        m_model_predictions.clear();
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
    m_delivered = m_latest->fetch_add(1) + 1;  // the jobs still queued for the folder skip themselves
    m_result_running = false;
    updateBusy();
    return false;
}

void AttentionController::requestPredictions()
{
    if (!m_model || !m_model_run || !m_model->model().hasPredictionHead())
        return;
    std::vector<int> positions = m_model->predictedPositions(m_model_run->token_ids);
    if (positions.empty())
        return;
    // Each position costs V x C multiply-adds (GPT-2 small: 39 M): after the result, on the worker.
    const quint64 generation = m_delivered;
    m_predictions_running = true;
    updateBusy();
    startOnWorker(
        m_pool, this, m_worker_threads,
        [generation, latest = m_latest, model = m_model, run = m_model_run, positions] {
            PredictionOutcome outcome;
            outcome.generation = generation;
            // A few positions at a time, so a keystroke meanwhile waits for one chunk, not for all
            // of them (GPT-2 small at T = 1024: 79 GFLOP); a stale outcome is still delivered, to
            // end the busy state.
            constexpr size_t kChunk = 8;
            for (size_t first = 0; first < positions.size(); first += kChunk) {
                if (latest->load() != generation)
                    return outcome;
                const std::vector<int> chunk(positions.begin() + first,
                                             positions.begin() + std::min(positions.size(), first + kChunk));
                auto predicted = model->model().predict(*run, chunk);
                if (!predicted)
                    break;
                outcome.predictions.insert(outcome.predictions.end(), predicted->begin(), predicted->end());
            }
            return outcome;
        },
        [this](PredictionOutcome outcome) { deliverPredictions(std::move(outcome)); });
}

void AttentionController::deliverPredictions(PredictionOutcome outcome)
{
    m_predictions_running = false;
    updateBusy();
    if (outcome.generation != m_delivered || outcome.generation != m_latest->load() || !m_model)
        return;  // for a run no longer shown, or cut short by a newer request
    m_model_predictions = std::move(outcome.predictions);
    emit modelPredictionsReady();
}

}  // namespace attn
