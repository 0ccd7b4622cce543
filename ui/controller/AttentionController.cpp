#include "ui/controller/AttentionController.h"

#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/Examples.h"
#include "core/text/WordSplitter.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QMetaObject>

#include <omp.h>

#include <cmath>
#include <limits>

namespace attn {

// What a worker needs, copied so the GUI thread may change its state meanwhile.
struct AttentionController::Job {
    quint64 generation = 0;
    std::shared_ptr<std::atomic<quint64>> latest;
    RunSettings config;
    QString sentence;
    std::shared_ptr<const LoadedWeights> weights;  // null: build them from the config
    std::shared_ptr<const AttentionInput> input;   // an example's rows; null: from the sentence
};

struct AttentionController::Outcome {
    quint64 generation = 0;
    bool skipped = false;  // a newer request arrived before this one started
    RunSettings config;
    std::shared_ptr<const AttentionResult> result;
    std::shared_ptr<const LoadedWeights> built_weights;
    QString error_field;
    QString error;
};

AttentionController::AttentionController(QObject* parent) : QObject(parent)
{
    // One worker: requests queue behind each other and stale ones are skipped when they start.
    m_pool.setMaxThreadCount(1);
    m_worker_threads = std::clamp(omp_get_num_procs() - 1, 1, std::max(1, omp_get_max_threads()));
}

AttentionController::~AttentionController()
{
    m_latest->store(std::numeric_limits<quint64>::max());  // queued jobs skip themselves
    m_pool.clear();
    m_pool.waitForDone();
}

double AttentionController::estimatedFlops(int seq_len, int input_dim, int d_model, int output_dim)
{
    const double t = seq_len;
    return 2.0 * t * input_dim * 3.0 * d_model  // Q, K, V projections
           + 4.0 * t * t * d_model              // scores and weighted values
           + 2.0 * t * d_model * output_dim;    // output projection
}

QString AttentionController::fieldOf(const RunSettings& config, const QString& message)
{
    if (config.num_heads <= 0 || (config.d_model > 0 && config.d_model % config.num_heads != 0))
        return QStringLiteral("heads");
    if (message.contains(QLatin1String("input dimension")))
        return QStringLiteral("input_dim");
    return QStringLiteral("d_model");
}

bool AttentionController::setConfig(const RunSettings& config)
{
    if (config.scale.mode == ScaleSetting::Mode::Custom &&
        !(std::isfinite(config.scale.custom) && config.scale.custom > 0)) {
        reportError(QStringLiteral("scale"), tr("the scale must be a finite positive number"));
        return false;
    }
    const bool from_file = config.weight_source == RunSettings::WeightSource::File;
    if (!from_file) {
        if (Status dims =
                AttentionWeights::checkDimensions(config.effectiveInputDim(), config.d_model, config.num_heads);
            !dims) {
            reportError(fieldOf(config, dims.error()), dims.error());
            return false;
        }
    } else {
        const bool reload = !m_weights || m_weights_config.weight_source != RunSettings::WeightSource::File ||
                            m_weights_config.weights_file != config.weights_file ||
                            m_weights_config.layer != config.layer ||
                            m_weights_config.file_num_heads != config.file_num_heads;
        if (reload) {
            auto loaded = WeightFile::load(config.weights_file, {config.layer, config.file_num_heads});
            if (!loaded) {
                const bool only_layer =
                    m_weights_config.weights_file == config.weights_file && m_weights_config.layer != config.layer;
                QString message = loaded.error();
                const QString name = QFileInfo(config.weights_file).fileName();
                if (!message.contains(name))
                    message = QStringLiteral("%1: %2").arg(name, message);
                reportError(only_layer ? QStringLiteral("layer") : QStringLiteral("weights"), message);
                return false;
            }
            m_weights = std::make_shared<const LoadedWeights>(std::move(loaded).value());
            m_weights_config = config;
            emit weightsChanged(
                QStringLiteral("%1 (%2)").arg(QFileInfo(config.weights_file).fileName(), m_weights->scheme));
        }
    }
    if (showsExample() && (!from_file || config.weights_file != m_example_weights_file))
        leaveExample();  // other weights: back to the sentence
    m_config = config;
    clearErrors();
    request();
    return true;
}

bool AttentionController::setExample(const Example& example)
{
    m_weights = std::make_shared<const LoadedWeights>(example.weights);
    m_weights_config = example.config;
    m_example_weights_file = example.config.weights_file;
    const bool was_active = showsExample();
    m_example_input = std::make_shared<const AttentionInput>(example.input);
    emit weightsChanged(QStringLiteral("%1 (%2)").arg(example.title, m_weights->scheme));
    if (!was_active)
        emit exampleActiveChanged(true);
    m_config = example.config;
    clearErrors();
    request();
    return true;
}

void AttentionController::leaveExample()
{
    m_example_input.reset();
    emit exampleActiveChanged(false);
}

bool AttentionController::setSentence(const QString& sentence)
{
    m_sentence = sentence;
    if (showsExample())
        leaveExample();
    if (sentence.trimmed().isEmpty()) {
        reportError(QStringLiteral("sentence"), tr("type a sentence"));
        return false;
    }
    request();
    return true;
}

void AttentionController::request()
{
    Job job;
    job.generation = m_latest->fetch_add(1) + 1;
    job.latest = m_latest;
    job.config = m_config;
    job.sentence = m_sentence;
    job.input = m_example_input;
    const bool weights_current = m_weights && (m_config.weight_source == RunSettings::WeightSource::File ||
                                               m_config.sameWeightsAs(m_weights_config));
    if (weights_current)
        job.weights = m_weights;

    const int seq_len = job.input ? int(job.input->tokens.size()) : int(WordSplitter::split(m_sentence).size());
    const int input_dim = job.weights ? job.weights->weights.inputDim() : m_config.effectiveInputDim();
    const int d_model = job.weights ? job.weights->weights.dModel() : m_config.d_model;
    const int output_dim = job.weights ? job.weights->weights.outputDim() : m_config.d_model;
    double flops = estimatedFlops(seq_len, input_dim, d_model, output_dim);
    if (!job.weights)
        flops += 10.0 * input_dim * 4.0 * d_model;  // generating random weights
    if (flops <= m_async_threshold) {
        // Small work on the GUI thread runs on one core: OpenMP's fork and barrier cost more than
        // the work itself, and on a loaded machine a barrier can wait ~100 ms for a descheduled
        // thread. The worker keeps every core for large inputs.
        const int threads = omp_get_max_threads();
        omp_set_num_threads(1);
        Outcome outcome = runJob(job);
        omp_set_num_threads(threads);
        deliver(std::move(outcome));
        return;
    }
    setBusy(true);
    m_pool.start([this, job, threads = m_worker_threads] {
        omp_set_num_threads(threads);  // this pool thread's own OpenMP setting
        Outcome outcome = runJob(job);
        if (outcome.skipped)
            return;
        QMetaObject::invokeMethod(
            this, [this, outcome = std::move(outcome)]() mutable { deliver(std::move(outcome)); },
            Qt::QueuedConnection);
    });
}

AttentionController::Outcome AttentionController::runJob(const Job& job)
{
    Outcome outcome;
    outcome.generation = job.generation;
    outcome.config = job.config;
    if (job.generation != job.latest->load()) {
        outcome.skipped = true;
        return outcome;
    }
    std::shared_ptr<const LoadedWeights> weights = job.weights;
    if (!weights) {
        auto built = AttentionPipeline::buildWeights(job.config);
        if (!built) {
            outcome.error_field = QStringLiteral("weights");
            outcome.error = built.error();
            return outcome;
        }
        weights = std::make_shared<const LoadedWeights>(std::move(built).value());
        outcome.built_weights = weights;
    }
    // The weights fix the dimensions (a file may differ from the panel's numbers).
    RunSettings effective = job.config;
    effective.d_model = weights->weights.dModel();
    effective.num_heads = weights->weights.num_heads;
    effective.input_dim = weights->weights.inputDim();
    AttentionInput input = job.input ? *job.input : AttentionPipeline::inputFromSentence(job.sentence, effective);
    if (input.tokens.isEmpty()) {
        outcome.error_field = QStringLiteral("sentence");
        outcome.error = tr("the sentence has no tokens");
        return outcome;
    }
    // Raw scores (for the walkthrough) only while they are small: T^2 floats per head.
    const qint64 seq_len = input.tokens.size();
    const TraceDetail detail =
        seq_len * seq_len * effective.num_heads <= (qint64(1) << 19) ? TraceDetail::Full : TraceDetail::Weights;
    auto result = AttentionPipeline::run(effective, std::move(input), *weights, detail);
    if (!result) {
        outcome.error_field = QStringLiteral("sentence");
        outcome.error = result.error();
        return outcome;
    }
    outcome.result = std::make_shared<const AttentionResult>(std::move(result).value());
    return outcome;
}

void AttentionController::deliver(Outcome outcome)
{
    if (outcome.built_weights && outcome.config.sameWeightsAs(m_config) &&
        !(m_weights && m_config.sameWeightsAs(m_weights_config))) {
        m_weights = outcome.built_weights;
        m_weights_config = outcome.config;
        emit weightsChanged(outcome.result ? outcome.result->weights_description : m_weights->scheme);
    }
    if (outcome.generation != m_latest->load() || outcome.generation <= m_delivered)
        return;  // a newer request is on its way: this result is stale
    m_delivered = outcome.generation;
    setBusy(false);
    if (!outcome.error.isEmpty()) {
        reportError(outcome.error_field, outcome.error);
        return;
    }
    m_result = outcome.result;
    if (m_error_fields.contains(QStringLiteral("sentence"))) {
        m_error_fields.remove(QStringLiteral("sentence"));
        emit errorChanged(QStringLiteral("sentence"), QString());
    }
    emit resultReady(m_result);
}

void AttentionController::waitForIdle()
{
    while (m_busy) {
        m_pool.waitForDone();
        QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    }
}

void AttentionController::setBusy(bool busy)
{
    if (busy == m_busy)
        return;
    m_busy = busy;
    emit busyChanged(busy);
}

void AttentionController::reportError(const QString& field, const QString& message)
{
    m_error_fields.insert(field);
    emit errorChanged(field, message);
}

void AttentionController::clearErrors()
{
    // The sentence's error is cleared by its next result; config errors by an accepted config.
    const QSet<QString> fields = m_error_fields;
    for (const QString& field : fields) {
        if (field == QLatin1String("sentence"))
            continue;
        m_error_fields.remove(field);
        emit errorChanged(field, QString());
    }
}

}  // namespace attn
