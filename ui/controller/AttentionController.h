#pragma once

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "core/weights/WeightFile.h"

#include <QObject>
#include <QSet>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <memory>

namespace attn {

struct Example;

// The single source of truth of the window: the current RunSettings, sentence and weights, and
// the latest AttentionResult. Every view (heads grid, head view, shapes, walkthrough, compare)
// connects to its signals and never computes on its own.
//
// - Weights are rebuilt only when the config says they changed (RunSettings::sameWeightsAs);
//   a weight file is read once, synchronously, when it is chosen.
// - Small inputs are computed synchronously, so a keystroke's result is there before the next
//   paint. Large ones run on a worker thread; every request carries a generation number, the
//   newest request wins, and results of older ones are dropped, never shown.
// - A rejected config (heads that do not divide d_model, an unreadable weight file, ...) keeps
//   the previous config, weights and result; the reason is reported through errorChanged.
class AttentionController : public QObject {
    Q_OBJECT
public:
    explicit AttentionController(QObject* parent = nullptr);
    ~AttentionController() override;  // waits for a running computation

    // Both return false (and emit errorChanged) when the request is refused.
    bool setConfig(const RunSettings& config);
    bool setSentence(const QString& sentence);
    // Shows a ready-made example (Examples menu): its config, weights and input rows instead of
    // the sentence. Config changes that keep its weights (causal, scale) stay on its rows; a new
    // sentence or other weights leave it (exampleActiveChanged(false)).
    bool setExample(const Example& example);
    bool showsExample() const { return m_example_input != nullptr; }

    const RunSettings& config() const { return m_config; }
    const QString& sentence() const { return m_sentence; }
    std::shared_ptr<const AttentionResult> result() const { return m_result; }
    std::shared_ptr<const LoadedWeights> weights() const { return m_weights; }
    bool isBusy() const { return m_busy; }

    // Work (in floating-point operations) above which a computation leaves the GUI thread.
    // Default 1e8: T = 16 at d_model 512 (~4e7) stays synchronous, T = 512 (~1.3e9) does not.
    void setAsyncThreshold(double flops) { m_async_threshold = flops; }
    static double estimatedFlops(int seq_len, int input_dim, int d_model, int output_dim);
    // OpenMP threads of the worker. Default: one core fewer than the machine has (at least 1,
    // at most OMP_NUM_THREADS), so the GUI thread keeps a core and no OpenMP barrier waits for
    // a thread the GUI or another process has pushed off the CPU. On the shared 2-core build
    // machine (load 5) one worker thread made a T = 512 keystroke ~2x faster than two.
    void setWorkerThreads(int threads) { m_worker_threads = std::max(1, threads); }
    int workerThreads() const { return m_worker_threads; }
    // Blocks until no computation is pending and its result has been delivered (tests, export).
    void waitForIdle();

signals:
    // A new result for the current sentence and config. Never emitted for a stale request.
    void resultReady(std::shared_ptr<const attn::AttentionResult> result);
    // field: "sentence", "d_model", "heads", "input_dim", "weights", "layer" or "scale".
    // A non-empty message means the field's value was refused; an empty one clears the error.
    void errorChanged(const QString& field, const QString& message);
    // True while a computation started on the worker has not delivered its result.
    void busyChanged(bool busy);
    // Weights were (re)built or loaded; description as in AttentionResult::weights_description.
    void weightsChanged(const QString& description);
    // An example's rows replace the sentence (true) or the sentence is back (false).
    void exampleActiveChanged(bool active);

private:
    struct Job;
    struct Outcome;
    static Outcome runJob(const Job& job);
    void request();
    void deliver(Outcome outcome);
    void setBusy(bool busy);
    void reportError(const QString& field, const QString& message);
    void clearErrors();
    void leaveExample();
    static QString fieldOf(const RunSettings& config, const QString& message);

    RunSettings m_config;
    RunSettings m_weights_config;  // the config m_weights were built from
    QString m_sentence = RunSettings::defaultSentence();
    std::shared_ptr<const LoadedWeights> m_weights;
    std::shared_ptr<const AttentionResult> m_result;
    std::shared_ptr<const AttentionInput> m_example_input;  // set while an example is shown
    QString m_example_weights_file;
    QSet<QString> m_error_fields;
    QThreadPool m_pool;
    std::shared_ptr<std::atomic<quint64>> m_latest = std::make_shared<std::atomic<quint64>>(0);
    quint64 m_delivered = 0;
    bool m_busy = false;
    double m_async_threshold = 1e8;
    int m_worker_threads = 1;
};

}  // namespace attn
