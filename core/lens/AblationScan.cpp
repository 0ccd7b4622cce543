#include "core/lens/AblationScan.h"

#include "core/model/TransformerForward.h"

#include <omp.h>

#include <atomic>
#include <mutex>

namespace attn {

Result<AblationScanResult> AblationScan::run(const ModelConfig& config, const ModelWeights& weights,
                                             const ModelRun& plain, int position, const MetricTokens& tokens,
                                             HeadAblation mode, const ScanControl& control)
{
    auto plain_metric = LogitMetric::value(config, weights, plain, position, tokens);
    if (!plain_metric)
        return Error{plain_metric.error()};
    const int L = config.num_layers;
    const int H = config.num_heads;
    const int total = L * H;

    AblationScanResult result;
    result.num_layers = L;
    result.num_heads = H;
    result.mode = mode;
    result.plain = *plain_metric;
    result.effects.assign(size_t(total), 0.0);

    std::mutex mutex;  // the first error, and the progress reports one at a time
    QString first_error;
    std::atomic<int> done{0};
    std::atomic<bool> failed{false};
    // Head (l, h) is pass l * H + h: the longest passes (layer 0) are handed out first.
#pragma omp parallel
    {
        omp_set_num_threads(1);  // this thread's own pass: its products on this thread alone
#pragma omp for schedule(dynamic, 1)
        for (int task = 0; task < total; ++task) {
            if (failed.load(std::memory_order_relaxed) || control.cancelled())
                continue;
            const int layer = task / H;
            const int head = task % H;
            ForwardIntervention ablation;
            ablation.startAt(layer);
            ablation.setOutputOnly(true);
            ablation.ablateHead(layer, head, mode);
            auto pass = TransformerForward::runIntervened(config, weights, plain.token_ids, plain.selected_layer,
                                                          ablation, &plain);
            auto metric = pass ? LogitMetric::value(config, weights, *pass, position, tokens)
                               : Result<double>(Error{pass.error()});
            if (!metric) {
                std::lock_guard lock(mutex);
                if (!failed.exchange(true))
                    first_error =
                        QStringLiteral("ablating head %1 of layer %2: %3").arg(head).arg(layer).arg(metric.error());
                continue;
            }
            result.effects[size_t(task)] = *metric - result.plain;
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
