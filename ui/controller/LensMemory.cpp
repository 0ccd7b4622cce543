#include "ui/controller/LensMemory.h"

#include "core/lens/LogitLens.h"
#include "core/model/ModelConfig.h"

#include <QLocale>

namespace attn {
namespace {

std::int64_t residualStreamBytes(const ModelConfig& config, int seq_len)
{
    return std::int64_t(sizeof(float)) * config.num_layers * std::int64_t(std::max(0, seq_len)) * config.hidden_size;
}

}  // namespace

std::int64_t LensMemory::bytes(const ModelConfig& config, int seq_len, int top_k)
{
    return residualStreamBytes(config, seq_len) + LogitLens::extraBytes(config, seq_len, top_k);
}

MemoryRequest LensMemory::request(const ModelConfig& config, int seq_len, int top_k)
{
    MemoryRequest request;
    request.query_len = seq_len;
    request.key_len = seq_len;
    request.lens = [config, top_k](int length) { return bytes(config, length, top_k); };
    return request;
}

Status LensMemory::check(const ModelConfig& config, int seq_len, int top_k, std::int64_t budget)
{
    const MemoryRequest wanted = request(config, seq_len, top_k);
    const MemoryEstimate need = MemoryPlan::estimate(wanted);
    if (need.total() <= budget)
        return {};
    const int longest = MemoryPlan::longestInputThatFits(wanted, budget);
    const QLocale english(QLocale::English);
    return Error{QStringLiteral("the logit lens of %1 tokens needs about %2 (its residual stream %3), over the "
                                "memory budget of %4: %5")
                     .arg(english.toString(seq_len), MemoryPlan::formatSize(need.total()),
                          MemoryPlan::formatSize(residualStreamBytes(config, seq_len)), MemoryPlan::formatSize(budget),
                          longest > 0 ? QStringLiteral("at most %1 tokens fit").arg(english.toString(longest))
                                      : QStringLiteral("not even one token fits"))};
}

}  // namespace attn
