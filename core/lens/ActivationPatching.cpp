#include "core/lens/ActivationPatching.h"

#include "core/model/TransformerForward.h"

#include <omp.h>

#include <QLocale>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <mutex>

namespace attn {
namespace {

// What patch (layer, column) replaces: a row (1, C) of the site's (T, C) matrix, or head h's
// columns (T, D) of z.
Matrix partOf(const Matrix& activation, InterventionSite site, int column, int head_dim)
{
    if (site == InterventionSite::HeadZ)
        return activation.middleCols(Eigen::Index(column) * head_dim, head_dim);
    return activation.row(column);
}

// m_clean and m_corrupt as equal as float32 passes can tell: the ratio would be noise.
bool sameMetric(double clean, double corrupt)
{
    return std::abs(clean - corrupt) <= 4.0 * FLT_EPSILON * std::max({1.0, std::abs(clean), std::abs(corrupt)});
}

}  // namespace

QString ActivationPatching::siteName(InterventionSite site)
{
    switch (site) {
        case InterventionSite::Residual:
            return QStringLiteral("resid");
        case InterventionSite::Attention:
            return QStringLiteral("attn");
        case InterventionSite::Mlp:
            return QStringLiteral("mlp");
        case InterventionSite::HeadZ:
            break;
    }
    return QStringLiteral("heads");
}

std::optional<InterventionSite> ActivationPatching::siteNamed(const QString& name)
{
    for (InterventionSite site :
         {InterventionSite::Residual, InterventionSite::Attention, InterventionSite::Mlp, InterventionSite::HeadZ})
        if (siteName(site) == name)
            return site;
    return std::nullopt;
}

std::int64_t ActivationPatching::plannedBytes(const ModelConfig& config, int seq_len, InterventionSite site,
                                              int threads)
{
    const std::int64_t T = seq_len;
    const std::int64_t C = config.hidden_size;
    const std::int64_t I = std::max(config.intermediate_size, config.hidden_size);
    const std::int64_t width = site == InterventionSite::HeadZ ? std::int64_t(config.num_heads) * config.headDim() : C;
    // The clean and the corrupted runs' activations at the site, L x (T, width) each.
    const std::int64_t record = 2 * std::int64_t(config.num_layers) * T * width;
    // One pass: the residual and its normed copy, Q, K, V, z and the output (T, C each), the MLP's
    // hidden rows (T, I, twice for a gated MLP), every head's probabilities (H, T, T).
    const std::int64_t pass = 8 * T * C + 2 * T * I + std::int64_t(config.num_heads) * T * T;
    return std::int64_t(sizeof(float)) * (record + pass * (std::max(threads, 1) + 1));
}

Result<PatchingResult> ActivationPatching::run(const ModelConfig& config, const ModelWeights& weights,
                                               const ModelRun& corrupted, const PatchingRequest& request,
                                               const ScanControl& control)
{
    const int T = corrupted.seqLen();
    if (int(request.clean_ids.size()) != T)
        return Error{QStringLiteral("the clean input has %1 tokens, the corrupted input %2: they must be as many")
                         .arg(request.clean_ids.size())
                         .arg(T)};
    const std::int64_t planned = plannedBytes(config, T, request.site, omp_get_max_threads());
    if (request.memory_budget > 0 && planned > request.memory_budget)
        return Error{QStringLiteral("patching %1 tokens at %2 would take %3, over the memory budget of %4")
                         .arg(T)
                         .arg(siteName(request.site), QLocale::c().formattedDataSize(planned),
                              QLocale::c().formattedDataSize(request.memory_budget))};
    auto corrupt_metric = LogitMetric::value(config, weights, corrupted, request.position, request.tokens);
    if (!corrupt_metric)
        return Error{corrupt_metric.error()};

    // The clean run, its activations at the site recorded; and the corrupted run's at the same
    // site, to find the patches that change nothing.
    ActivationRecord clean_record;
    ForwardIntervention recording;
    recording.record(request.site, &clean_record);
    recording.setOutputOnly(true);
    auto clean = TransformerForward::runIntervened(config, weights, request.clean_ids, corrupted.selected_layer,
                                                   recording, nullptr);
    if (!clean)
        return Error{QStringLiteral("the clean input: %1").arg(clean.error())};
    auto clean_metric = LogitMetric::value(config, weights, *clean, request.position, request.tokens);
    if (!clean_metric)
        return Error{clean_metric.error()};
    if (sameMetric(*clean_metric, *corrupt_metric))
        return Error{QStringLiteral("the metric is %1 for both inputs: (m_patched - m_corrupt) / (m_clean - "
                                    "m_corrupt) is undefined")
                         .arg(*corrupt_metric, 0, 'g', 9)};
    ActivationRecord corrupt_record;
    ForwardIntervention corrupt_recording;
    corrupt_recording.record(request.site, &corrupt_record);
    corrupt_recording.setOutputOnly(true);
    auto corrupt_again = TransformerForward::runIntervened(config, weights, corrupted.token_ids,
                                                           corrupted.selected_layer, corrupt_recording, nullptr);
    if (!corrupt_again)
        return Error{corrupt_again.error()};

    const int L = config.num_layers;
    const int D = config.headDim();
    const int columns = request.site == InterventionSite::HeadZ ? config.num_heads : T;
    PatchingResult result;
    result.site = request.site;
    result.num_layers = L;
    result.columns = columns;
    result.clean = *clean_metric;
    result.corrupt = *corrupt_metric;
    result.values.assign(size_t(L) * size_t(columns), 0.0);

    const std::vector<Matrix>& clean_acts = clean_record.at(request.site);
    const std::vector<Matrix>& corrupt_acts = corrupt_record.at(request.site);
    std::vector<int> tasks;  // layer * columns + column, the patches that change something
    for (int layer = 0; layer < L; ++layer)
        for (int column = 0; column < columns; ++column)
            if (partOf(clean_acts[size_t(layer)], request.site, column, D) !=
                partOf(corrupt_acts[size_t(layer)], request.site, column, D))
                tasks.push_back(layer * columns + column);
    const int total = int(tasks.size());
    const double denominator = *clean_metric - *corrupt_metric;

    std::mutex mutex;  // the first error, and the progress reports one at a time
    QString first_error;
    std::atomic<int> done{0};
    std::atomic<bool> failed{false};
#pragma omp parallel
    {
        omp_set_num_threads(1);  // this thread's own pass: its products on this thread alone
#pragma omp for schedule(dynamic, 1)
        for (int t = 0; t < total; ++t) {
            if (failed.load(std::memory_order_relaxed) || control.cancelled())
                continue;
            const int layer = tasks[size_t(t)] / columns;
            const int column = tasks[size_t(t)] % columns;
            ForwardIntervention patch;
            patch.startAt(layer);
            patch.setOutputOnly(true);
            if (request.site == InterventionSite::HeadZ)
                patch.replaceHead(layer, column, partOf(clean_acts[size_t(layer)], request.site, column, D));
            else
                patch.replaceRow(request.site, layer, column, clean_acts[size_t(layer)].row(column));
            auto pass = TransformerForward::runIntervened(config, weights, corrupted.token_ids,
                                                          corrupted.selected_layer, patch, &corrupted);
            auto metric = pass ? LogitMetric::value(config, weights, *pass, request.position, request.tokens)
                               : Result<double>(Error{pass.error()});
            if (!metric) {
                std::lock_guard lock(mutex);
                if (!failed.exchange(true))
                    first_error = QStringLiteral("patching %1 %2 of layer %3: %4")
                                      .arg(request.site == InterventionSite::HeadZ ? QStringLiteral("head")
                                                                                   : QStringLiteral("position"))
                                      .arg(column)
                                      .arg(layer)
                                      .arg(metric.error());
                continue;
            }
            result.values[size_t(tasks[size_t(t)])] = (*metric - *corrupt_metric) / denominator;
            const int finished = ++done;
            if (control.report) {
                std::lock_guard lock(mutex);
                control.report(finished, total);
            }
        }
    }
    if (failed)
        return Error{first_error};
    if (done.load() < total)
        return Error{cancelledMessage()};
    return result;
}

}  // namespace attn
