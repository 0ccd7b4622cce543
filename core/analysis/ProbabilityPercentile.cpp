#include "core/analysis/ProbabilityPercentile.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/attention/HeadRecomputer.h"
#include "core/pipeline/AttentionResult.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace attn {

namespace {

// A float's bits as an unsigned key in the floats' order (negatives below positives).
std::uint32_t orderKey(float value)
{
    const auto bits = std::bit_cast<std::uint32_t>(value);
    return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

float fromOrderKey(std::uint32_t key)
{
    return std::bit_cast<float>(key & 0x80000000u ? key & 0x7fffffffu : ~key);
}

// Every weight the views show outside `mask`, a block of rows at a time: visit(value) for each.
template <typename Visit>
bool forEachShownWeight(const AttentionResult& result, const MaskMatrix& mask, const std::function<bool()>& cancelled,
                        Visit visit)
{
    const AttentionTrace& trace = result.trace;
    const bool hiding = !trace.keepsEveryHead() &&
                        std::find(result.hidden_keys.begin(), result.hidden_keys.end(), true) != result.hidden_keys.end();
    const bool masked = mask.rows() == trace.queryLength() && mask.cols() == trace.keyLength();
    Matrix hidden_rows;  // (rows, key_len): a recomputed block with the hidden keys hidden
    const auto scan = [&](int first, const ConstBlockRef& rows) {
        for (int i = 0; i < int(rows.rows()); ++i) {
            const float* row = rows.row(i).data();
            const bool* row_mask = masked ? mask.row(first + i).data() : nullptr;
            for (int key = 0; key < int(rows.cols()); ++key)
                if (!row_mask || !row_mask[key])
                    visit(row[key]);
        }
    };
    return forEachHeadRows(trace, [&](int head, int first, const ConstBlockRef& block) {
        if (cancelled && cancelled())
            return false;
        if (!hiding || head == trace.kept_head) {
            scan(first, block);
            return true;
        }
        hidden_rows = block;
        for (int i = 0; i < int(hidden_rows.rows()); ++i)
            AttentionDisplay::hideKeysInRow(hidden_rows.row(i), result.hidden_keys);
        scan(first, hidden_rows);
        return true;
    });
}

// The bin of 16-bit bins (in order) that holds the value of rank `rank` (0-based), and how many
// values lie in the bins below it.
std::pair<int, std::uint64_t> binOfRank(const std::vector<std::uint64_t>& counts, std::uint64_t rank)
{
    std::uint64_t below = 0;
    for (int bin = 0; bin < int(counts.size()); ++bin) {
        if (rank < below + counts[size_t(bin)])
            return {bin, below};
        below += counts[size_t(bin)];
    }
    return {int(counts.size()) - 1, below};
}

// The percentile of the values `for_each(visit)` visits (each pass visits the same values; false:
// stopped), from two passes of bit histograms.
template <typename ForEach>
std::optional<double> radixPercentile(ForEach for_each, double p)
{
    constexpr int kBins = 1 << 16;
    std::vector<std::uint64_t> upper(kBins, 0);
    std::uint64_t count = 0;
    if (!for_each([&](float value) {
            ++upper[orderKey(value) >> 16];
            ++count;
        }))
        return std::nullopt;
    if (count == 0)
        return 0.0;
    // numpy's default ("linear"): position p/100 * (n - 1) between the two order statistics around it.
    const double position = std::clamp(p, 0.0, 100.0) / 100.0 * double(count - 1);
    const auto rank_low = std::uint64_t(position);
    const std::uint64_t rank_high = std::min(rank_low + 1, count - 1);
    // Plain variables, not structured bindings: the lambdas below capture them (clang 14 cannot).
    const std::pair<int, std::uint64_t> low_bin = binOfRank(upper, rank_low);
    const std::pair<int, std::uint64_t> high_bin = binOfRank(upper, rank_high);
    const int bin_low = low_bin.first;
    const int bin_high = high_bin.first;
    const std::uint64_t below_low = low_bin.second;
    const std::uint64_t below_high = high_bin.second;

    std::vector<std::uint64_t> lower_low(kBins, 0);
    std::vector<std::uint64_t> lower_high(kBins, 0);
    if (!for_each([&](float value) {
            const std::uint32_t key = orderKey(value);
            const int bin = int(key >> 16);
            if (bin == bin_low)
                ++lower_low[key & 0xffffu];
            if (bin == bin_high)
                ++lower_high[key & 0xffffu];
        }))
        return std::nullopt;
    const auto valueOfRank = [](const std::vector<std::uint64_t>& lower, int bin, std::uint64_t rank_in_bin) {
        const int low_bits = binOfRank(lower, rank_in_bin).first;
        return double(fromOrderKey(std::uint32_t(bin) << 16 | std::uint32_t(low_bits)));
    };
    const double low = valueOfRank(lower_low, bin_low, rank_low - below_low);
    if (rank_high == rank_low)
        return low;
    const double high = valueOfRank(lower_high, bin_high, rank_high - below_high);
    return low + (position - double(rank_low)) * (high - low);
}

}  // namespace

std::optional<double> probabilityPercentile(const AttentionResult& result, const MaskMatrix& mask, double p,
                                       const std::function<bool()>& cancelled)
{
    return radixPercentile(
        [&](const auto& visit) { return forEachShownWeight(result, mask, cancelled, visit); }, p);
}

double matrixPercentile(const Matrix& weights, const MaskMatrix& mask, double p)
{
    const bool masked = mask.rows() == weights.rows() && mask.cols() == weights.cols();
    return *radixPercentile(
        [&](const auto& visit) {
            for (Eigen::Index i = 0; i < weights.size(); ++i)
                if (!masked || !mask.data()[i])
                    visit(weights.data()[i]);
            return true;
        },
        p);
}

}  // namespace attn
