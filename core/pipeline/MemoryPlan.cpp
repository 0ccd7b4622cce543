#include "core/pipeline/MemoryPlan.h"

#include "core/io/OutputChunk.h"

#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

#include <sys/resource.h>
#include <unistd.h>

namespace attn {
namespace {

constexpr std::int64_t kMiB = std::int64_t(1) << 20;
constexpr std::int64_t kGiB = std::int64_t(1) << 30;
constexpr std::int64_t kFloat = 4;
constexpr std::int64_t kMinimumBudget = 64 * kMiB;
constexpr int kLongestSearched = 1 << 24;  // tokens; the search stops there

QString groupedNumber(std::int64_t value)
{
    QLocale locale(QLocale::English);
    return locale.toString(qlonglong(value));
}

}  // namespace

MemoryEstimate MemoryPlan::estimate(const MemoryRequest& request)
{
    const std::int64_t queries = std::max(0, request.query_len);
    const std::int64_t keys = request.self_attention ? queries : std::max(0, request.key_len);
    const std::int64_t heads = std::max(0, request.num_heads);
    const std::int64_t d_model = std::max(0, request.d_model);
    const std::int64_t kv_dim = request.kv_dim > 0 ? request.kv_dim : d_model;
    const std::int64_t cells = queries * keys;  // one head's (T_q, T_kv)

    MemoryEstimate estimate;
    estimate.baseline = kBaselineBytes;
    // X and its positional part for the queries (and the keys' input), Q, concat, output, K, V,
    // one more (T, d_model) for a product's temporary, and the layer's weights.
    const std::int64_t inputs = (request.self_attention ? 2 * queries : 2 * (queries + keys)) * request.input_dim;
    estimate.vectors = kFloat * (inputs + 3 * queries * d_model + queries * request.output_dim + 2 * keys * kv_dim +
                                 request.parameters);
    const std::int64_t held_heads = request.kept_heads > 0 ? std::min<std::int64_t>(heads, request.kept_heads) : heads;
    estimate.probabilities = kFloat * (held_heads + std::max(0, request.extra_matrices)) * cells;
    estimate.scores = request.detail == TraceDetail::Full ? kFloat * held_heads * cells : 0;
    const std::int64_t drawn = request.view_cells > 0 ? std::min(cells, request.view_cells) : cells;
    // Each heatmap's drawn cells, and the views' mask of every cell with its copy.
    const std::int64_t masks = request.masked ? 2 * cells : 0;
    estimate.view_copies = request.view_copies > 0 ? kPictureBytesPerCell * request.view_copies * drawn + masks : 0;
    if (request.block_factor > 0) {  // the engine's max and mean of every block, and its flag
        const std::int64_t f = request.block_factor;
        const std::int64_t blocks = ((queries + f - 1) / f) * ((keys + f - 1) / f);
        estimate.view_copies += heads * ((2 * kFloat + 1) * blocks + kFloat * queries);
    }
    estimate.held = std::max<std::int64_t>(0, request.held);
    estimate.lens = request.lens ? std::max<std::int64_t>(0, request.lens(int(queries))) : 0;
    // The JSON is written as it is made: a chunk of its text (and the row that fills it past the
    // chunk), and the head tables' block of query rows of every head (JsonReport::write).
    estimate.json = request.json ? 2 * std::int64_t(OutputChunk::kBytes) + kJsonBytesPerValue * keys +
                                       kFloat * heads * kJsonHeadTableRows * keys
                                 : 0;
    return estimate;
}

MemoryRequest MemoryPlan::forPass(int query_len, int key_len, const AttentionWeights& weights, TraceDetail detail)
{
    MemoryRequest request;
    request.query_len = query_len;
    request.key_len = key_len > 0 ? key_len : query_len;
    request.self_attention = key_len <= 0;
    request.num_heads = weights.num_heads;
    request.d_model = weights.dModel();
    request.kv_dim = weights.kvHeads() * weights.headDim();
    request.input_dim = weights.inputDim();
    request.output_dim = weights.outputDim();
    request.parameters = weights.parameterCount();
    request.detail = detail;
    return request;
}

std::int64_t MemoryPlan::physicalMemory()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0)
        return 0;
    return std::int64_t(pages) * page_size;
}

std::int64_t MemoryPlan::defaultBudget()
{
    std::int64_t budget = physicalMemory() / 2;
    if (budget <= 0)
        budget = 2 * kGiB;  // unknown machine: a size every machine this runs on has
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        budget = std::min(budget, std::int64_t(limit.rlim_cur / 4 * 3));
    return std::max(budget, kMinimumBudget);
}

int MemoryPlan::longestInputThatFits(MemoryRequest request, std::int64_t budget)
{
    const auto fits = [&](int length) {
        request.query_len = length;
        return estimate(request).total() <= budget;
    };
    if (!fits(1))
        return 0;
    int low = 1;  // fits
    int high = 2;
    while (high < kLongestSearched && fits(high)) {
        low = high;
        high *= 2;
    }
    if (high >= kLongestSearched && fits(kLongestSearched))
        return kLongestSearched;
    while (high - low > 1) {  // low fits, high does not
        const int middle = low + (high - low) / 2;
        (fits(middle) ? low : high) = middle;
    }
    return low;
}

int MemoryPlan::mostHeadsThatFit(MemoryRequest request, std::int64_t budget)
{
    const int head_dim = request.num_heads > 0 ? request.d_model / request.num_heads : 0;
    const int kv_head_dim = request.num_heads > 0 && request.kv_dim > 0 ? request.kv_dim / request.num_heads : 0;
    const int heads = request.num_heads;
    const bool grid = request.view_copies == heads;  // a grid draws every head
    for (int fewer = heads; fewer >= 1; --fewer) {
        request.num_heads = fewer;
        request.d_model = head_dim * fewer;
        request.kv_dim = kv_head_dim * fewer;
        if (grid)
            request.view_copies = fewer;
        if (estimate(request).total() <= budget)
            return fewer;
    }
    return 0;
}

Status MemoryPlan::check(const MemoryRequest& request, std::int64_t budget)
{
    const MemoryEstimate need = estimate(request);
    if (need.total() <= budget)
        return {};
    QStringList parts;  // the largest parts, so the user sees what to change
    const auto part = [&parts](std::int64_t bytes, const QString& what) {
        if (bytes >= 64 * kMiB)
            parts.append(QStringLiteral("%1 %2").arg(what, formatSize(bytes)));
    };
    part(need.probabilities, QStringLiteral("attention weights"));
    part(need.scores, QStringLiteral("raw scores"));
    part(need.view_copies, QStringLiteral("heatmaps"));
    part(need.json, QStringLiteral("JSON"));
    part(need.vectors, QStringLiteral("vectors"));
    part(need.held, QStringLiteral("the result shown"));
    part(need.lens, QStringLiteral("logit lens"));
    const int keys = request.self_attention ? request.query_len : request.key_len;
    QString message =
        QStringLiteral("%1 tokens x %2 keys x %3 heads need about %4%5, over the memory budget of %6")
            .arg(groupedNumber(request.query_len), groupedNumber(keys))
            .arg(request.num_heads)
            .arg(formatSize(need.total()),
                 parts.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", "))),
                 formatSize(budget));
    const int longest = longestInputThatFits(request, budget);
    if (longest > 0)
        message += QStringLiteral(": at most %1 tokens fit").arg(groupedNumber(longest));
    else
        message += QStringLiteral(": not even one token fits");
    if (request.num_heads > 1 && longest > 0)
        if (const int heads = mostHeadsThatFit(request, budget); heads > 0)
            message += QStringLiteral(", or %1 %2 at this length").arg(heads).arg(heads == 1 ? "head" : "heads");
    return Error{message};
}

Result<std::int64_t> MemoryPlan::parseSize(const QString& text)
{
    static const QRegularExpression pattern(QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([kmgt]?)(?:i?b)?\\s*$"),
                                            QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return Error{QStringLiteral("'%1' is not a size (examples: 2G, 1.5GB, 800M, 1073741824)").arg(text)};
    const double amount = match.captured(1).toDouble();
    const QChar unit = match.captured(2).isEmpty() ? QChar() : match.captured(2).at(0).toLower();
    int shift = 0;
    if (unit == u'k')
        shift = 10;
    else if (unit == u'm')
        shift = 20;
    else if (unit == u'g')
        shift = 30;
    else if (unit == u't')
        shift = 40;
    const double bytes = std::ldexp(amount, shift);
    if (!std::isfinite(bytes) || bytes > std::ldexp(1.0, 50))
        return Error{QStringLiteral("'%1' is larger than any machine's memory").arg(text)};
    if (bytes < double(kMinimumBudget))
        return Error{
            QStringLiteral("'%1' is less than the %2 the program needs").arg(text, formatSize(kMinimumBudget))};
    return std::int64_t(bytes);
}

Result<std::int64_t> MemoryPlan::parseBudget(const QString& text, std::int64_t physical)
{
    Result<std::int64_t> bytes = parseSize(text);
    if (bytes && physical > 0 && *bytes > physical)
        return Error{
            QStringLiteral("'%1' is more than this machine's %2 of memory").arg(text.trimmed(), formatSize(physical))};
    return bytes;
}

QString MemoryPlan::formatSize(std::int64_t bytes)
{
    if (bytes >= kGiB)
        return QStringLiteral("%1 GB").arg(double(bytes) / double(kGiB), 0, 'f', 1);
    return QStringLiteral("%1 MB").arg((bytes + kMiB / 2) / kMiB);
}

}  // namespace attn
