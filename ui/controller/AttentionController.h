#pragma once

#include "core/model/ModelRun.h"
#include "core/model/TokenPredictions.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "core/pipeline/SettingField.h"
#include "core/weights/LoadedWeights.h"
#include "ui/controller/LayerPass.h"
#include "ui/controller/ModelPass.h"
#include "ui/controller/ModelPredictions.h"
#include "ui/controller/PassLimits.h"
#include "ui/controller/VariantPass.h"
#include "ui/workers/LatestJob.h"

#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>

namespace attn {

struct Example;
class ModelSession;
class PendingModel;
class PendingWeights;

// The single source of truth of the window: the current RunSettings, sentence and weights, and
// the latest AttentionResult. Every view (heads grid, head view, shapes, walkthrough, compare)
// connects to its signals and never computes on its own.
//
// - Weights are rebuilt only when the config says they changed (RunSettings::sameWeightsAs).
//   A weight file is always read on the worker thread, once per file, layer and heads: until it
//   has been read, config() is the new config and the previous weights and result stay in use.
// - Small inputs are computed synchronously, so a keystroke's result is there before the next
//   paint. Large ones run on a worker thread; every request carries a generation number, the
//   newest request wins, and results of older ones are dropped, never shown.
// - A rejected config (heads that do not divide d_model, ...) keeps the previous config, weights
//   and result; the reason is reported through errorChanged at once. A weight file that cannot be
//   read is reported when the worker has tried (errorChanged for Weights or Layer), and the
//   config goes back to the one in use before it (configChanged).
// - Side B of the compare view (requestVariant) goes through the same worker, with its own
//   generations, and keeps its own weights so a file is read once, not once per result.
// - A whole model (openModel) is read, and every forward pass run, on the worker, under the same
//   generations. While it is open the sentence goes through its tokenizer, the result is the
//   selected layer of its run (ModelLayerResult), and the config is kept for when it is closed.
//   A folder that cannot be read is reported (errorChanged for Model) and the model, or the
//   weights, in use stay. A weight file given while a model is open (setConfig) is read first:
//   once read it replaces the model (modelClosed, then weightsFileLoaded); refused, the model
//   stays. A folder opened while a weight file is still being read wins: the file is dropped and
//   the config goes back to the one in use. Choosing a layer never runs the model again: the run keeps every layer's maps and
//   attention input, and the layer's Q, K, V are one attention layer away.
//
// What runs where: the controller keeps the state and decides; each kind of job is a class of its
// own that runs through a LatestJob on the controller's one worker thread: LayerPass (the
// settings' weights), ModelPass (a whole model: its folder, forward pass and layer),
// ModelPredictions (the model's top 5 after each run), VariantPass (Compare's side B), and the
// weight file that is to replace an open model (PendingWeights read on its own job).
class AttentionController : public QObject {
    Q_OBJECT
public:
    explicit AttentionController(QObject* parent = nullptr);
    ~AttentionController() override;  // waits for a running computation

    // Both return false (and emit errorChanged) when the request is refused at once. A weight
    // file that has yet to be read is accepted (true) and refused later, if at all.
    bool setConfig(const RunSettings& config);
    bool setSentence(const QString& sentence);
    // Keeps the sentence for the next computation without starting one (the window's start-up,
    // which sets the config right after).
    void presetSentence(const QString& sentence);
    // Cross-attention: keys and values from this second sentence, queries from the sentence; an
    // empty one means self-attention. With the causal mask it is refused (errorChanged for
    // KvSentence) until one of the two is cleared.
    bool setKvSentence(const QString& sentence);
    void presetKvSentence(const QString& sentence);  // kept for the next computation, as presetSentence
    const QString& kvSentence() const { return m_kv_sentence; }
    // Shows a ready-made example (Examples menu): its config, weights and input rows instead of
    // the sentence. Config changes that keep its weights (causal, scale) stay on its rows; a new
    // sentence or other weights leave it (exampleActiveChanged(false)).
    bool setExample(const Example& example);
    bool showsExample() const { return m_example_input != nullptr; }

    // Side B of the compare view: `base`'s input (the sentence embedded again, or base's rows
    // when the sentence is empty) under `config`. The answer is variantReady or variantFailed,
    // for the newest request only.
    void requestVariant(const RunSettings& config, std::shared_ptr<const AttentionResult> base,
                        const QString& sentence);

    // Whole models. openModel reads the folder on the worker and shows `layer` of its run;
    // closeModel goes back to the config's weights (modelClosed).
    void openModel(const QString& dir, int layer = 0);
    void closeModel();
    bool hasModel() const { return m_model != nullptr; }
    bool isOpeningModel() const { return m_pending_model != nullptr; }
    QString openingModelDir() const;  // the folder being read, empty when none
    std::shared_ptr<const ModelSession> model() const { return m_model; }
    std::shared_ptr<const ModelRun> modelRun() const { return m_model_run; }
    // Shows `run` (a run of the open model made elsewhere: a generation's step) in every view as if
    // the sentence had given it, its chosen layer made from it; the sentence is not run. The next
    // sentence, or a run the views need again, goes back to the sentence.
    void showModelRun(std::shared_ptr<const ModelRun> run);
    bool modelRunIsGiven() const { return m_model_run_given; }         // the run in hand came from showModelRun
    const QStringList& modelTokens() const { return m_model_tokens; }  // convert_ids_to_tokens of the run
    const QStringList& modelLabels() const { return m_model_labels; }  // the same as the views label them
    // The head's top 5 at the positions it predicts (GPT-2: every position, the next token; the
    // BERT family: each [MASK]); they follow each run (modelPredictionsReady).
    const std::vector<TokenPrediction>& modelPredictions() const { return m_predictions.predictions(); }
    // The layer every view shows; false (and errorChanged for Layer) when out of range. With a
    // run in hand the layer's result is made from it: no forward pass.
    bool setLayer(int layer);
    // Whether a model's pass keeps its residual stream (L T C floats): only while a view reads it
    // (the Lens tab). Turned on with a run in hand that lacks it, the run is made again.
    void setKeepResidualStream(bool keep);
    bool keepsResidualStream() const { return m_keep_residual_stream; }
    // Whether a model's sentence is a list of token ids ("464, 3797") used as they are, instead of
    // text through its tokenizer (a folder without one takes ids only). Refusals (not numbers, an
    // id outside the vocabulary, more ids than positions) are on the Sentence field. Takes effect
    // with the next setSentence: the field's text changes with the mode, and is read only then.
    void setTokenIdsInput(bool token_ids);
    bool tokenIdsInput() const { return m_token_ids_input; }
    // Heads switched off in every run of the model (their z replaced by zeros or their mean): each
    // change runs the model again (newest request wins), and predictions, lens, attribution and
    // maps follow the ablated run. A head out of the model's range is refused (false). Another
    // model, or none, clears them.
    bool ablateHead(int layer, int head, HeadAblation mode);
    void restoreHead(int layer, int head);
    void restoreAllHeads();
    const std::vector<AblatedHead>& ablatedHeads() const { return m_ablated; }
    int selectedLayer() const { return m_layer; }
    int forwardPasses() const { return m_forward_passes; }  // of whole models, since construction

    const RunSettings& config() const { return m_config; }
    const QString& sentence() const { return m_sentence; }
    std::shared_ptr<const AttentionResult> result() const { return m_result; }
    std::shared_ptr<const LoadedWeights> weights() const { return m_weights; }  // in use
    bool isBusy() const { return m_busy; }
    bool isLoadingWeightFile() const;

    // Work (in floating-point operations) above which a computation leaves the GUI thread.
    // Default 1e8: T = 16 at d_model 512 (~4e7) stays synchronous, T = 512 (~1.3e9) does not.
    // Reading a weight file always leaves it.
    void setAsyncThreshold(double flops) { m_limits.async_threshold = flops; }
    static double estimatedFlops(int seq_len, int input_dim, int d_model, int output_dim);
    // OpenMP threads of the worker. Default: one core fewer than the machine has (at least 1,
    // at most OMP_NUM_THREADS), so the GUI thread keeps a core and no OpenMP barrier waits for
    // a thread the GUI or another process has pushed off the CPU: on a shared 2-core machine one
    // worker thread makes a T = 512 keystroke faster than two.
    // The worker's OpenMP threads for every pass (default: all cores but one, and all of them for
    // a pass of kAllCoresFlops or more).
    void setWorkerThreads(int threads)
    {
        m_limits.worker_threads = std::max(1, threads);
        m_limits.worker_threads_chosen = true;
    }
    // From this many floating-point operations on, a pass runs on every core (a few seconds on one).
    static constexpr double kAllCoresFlops = PassLimits::kAllCoresFlops;
    int workerThreadsFor(double flops) const { return m_limits.workerThreadsFor(flops); }
    int workerThreads() const { return m_limits.worker_threads; }
    // What a result may take (MemoryPlan): a larger one is refused before computing, on the
    // Sentence field, saying what would fit; the last good result stays. 0: the default budget.
    void setMemoryBudget(std::int64_t bytes) { m_limits.memory_budget = std::max<std::int64_t>(0, bytes); }
    std::int64_t memoryBudget() const { return m_limits.memoryBudget(); }
    static std::int64_t defaultMemoryBudget();
    // The most cells one heatmap of the window holds (its reduced size; 0: every cell).
    // Above it, with every head's weights too large to keep (AttentionPipeline::blockFactorFor),
    // the engine reduces every head to its picture as it computes it and keeps one head's weights:
    // the kept head (default 0; the head view's, which the window sets), the others recomputed when
    // a view asks for them.
    void setPictureCellLimit(std::int64_t cells) { m_limits.picture_cells = std::max<std::int64_t>(0, cells); }
    void setKeptHead(int head) { m_limits.kept_head = std::max(0, head); }
    // Every head's weights above which a long input takes that route (tests make it small).
    void setLongRouteBytes(std::int64_t bytes) { m_limits.long_route_bytes = std::max<std::int64_t>(0, bytes); }
    int keptHead() const { return m_limits.kept_head; }
    // Blocks until no computation (result, weight file, side B) is pending and its outcome has
    // been delivered (tests, export, the command line's screenshot).
    void waitForIdle();

signals:
    // A new result for the current sentence and config. Never emitted for a stale request.
    void resultReady(std::shared_ptr<const attn::AttentionResult> result);
    // A non-empty message means the field's value was refused; an empty one clears the error.
    void errorChanged(attn::SettingField field, const QString& message);
    // True while a computation started on the worker has not delivered its outcome.
    void busyChanged(bool busy);
    // config() changed: accepted, or back to the config in use after a refused weight file.
    void configChanged(const attn::RunSettings& config);
    // Weights were (re)built or loaded; description as in AttentionResult::weights_description.
    void weightsChanged(const QString& description);
    // A weight file has been read and its weights are in use.
    void weightsFileLoaded(const QString& path);
    // An example's rows replace the sentence (true) or the sentence is back (false).
    void exampleActiveChanged(bool active);
    // Side B for the newest requestVariant, or why there is none.
    void variantReady(std::shared_ptr<const attn::AttentionResult> variant);
    void variantFailed(const QString& message);
    // A whole model's folder was read and is in use (its first result follows).
    void modelOpened(const QString& dir);
    // After each forward pass of a whole model: every layer's maps, and the tokens' strings.
    void modelRunReady(std::shared_ptr<const attn::ModelRun> run, QStringList tokens);
    void modelPredictionsReady();
    void modelClosed();
    void layerChanged(int layer);
    void ablationChanged();  // ablatedHeads() changed; the ablated run follows (modelRunReady)

private:
    void request();  // the result of the settings' weights (LayerPass)
    void deliver(LayerPass::Outcome outcome);
    bool adoptWeights(const LayerPass::Outcome& outcome);  // false: a refused file, handled here
    bool readFileForModel(const RunSettings& config);      // setConfig's file while a model is open
    void deliverFileForModel(const std::shared_ptr<PendingWeights>& pending);
    bool m_keep_residual_stream = false;
    void requestModel(bool forward);  // a whole model's result (ModelPass); false: from the run in hand
    void deliverModel(ModelPass::Outcome outcome);
    void startModelPass(const ModelPass::Request& job);
    bool adoptModel();  // the folder the newest pass read; false: refused, handled here
    bool modelInUse() const { return m_model || m_pending_model; }
    void dropResultRequests();  // those under way will never be shown
    void setCurrentConfig(const RunSettings& config);
    void updateBusy();
    void reportError(SettingField field, const QString& message);
    void clearErrors();
    void leaveExample();

    // The settings and what they show.
    RunSettings m_config;           // asked for; its weights may still be loading
    RunSettings m_fallback_config;  // the last config whose weights were in use: a refused file goes back to it
    RunSettings m_weights_config;   // the config m_weights were built from
    QString m_sentence = RunSettings::defaultSentence();
    QString m_kv_sentence;  // empty: self-attention
    std::shared_ptr<const LoadedWeights> m_weights;
    std::shared_ptr<PendingWeights> m_pending;  // the weights m_config needs while they are built or read
    bool m_leave_example_with_load = false;     // the file being read replaces the example shown
    std::shared_ptr<const AttentionResult> m_result;
    bool m_result_outdated = true;  // the sentence or example changed since m_result was computed
    std::shared_ptr<const AttentionInput> m_example_input;  // set while an example is shown
    QString m_example_weights_file;
    std::set<SettingField> m_error_fields;
    PassLimits m_limits;

    // Whole models.
    std::shared_ptr<const ModelSession> m_model;
    std::shared_ptr<PendingModel> m_pending_model;  // a folder being read
    std::shared_ptr<const ModelRun> m_model_run;
    bool m_model_run_given = false;
    QStringList m_model_tokens;
    QStringList m_model_labels;  // the tokens as the views label them
    int m_layer = 0;
    int m_forward_passes = 0;
    bool m_token_ids_input = false;
    std::vector<AblatedHead> m_ablated;
    void setAblated(std::vector<AblatedHead> ablated);

    // The jobs, on one worker thread: requests queue behind each other and stale ones are skipped
    // when their turn comes. The result's request counter is shared by the single-layer pass, the
    // model's pass and its predictions: whichever is asked for last wins.
    QThreadPool m_pool;
    LatestJob m_result_job{this, m_pool};
    LatestJob m_file_job{this, m_pool};  // a weight file that is to replace the open model
    ModelPredictions m_predictions;
    VariantPass m_variant;
    bool m_result_running = false;  // a result is on the worker
    bool m_file_running = false;
    bool m_busy = false;
};

}  // namespace attn
