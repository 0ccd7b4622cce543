#include "core/analysis/AttentionDisplay.h"

#include "core/model/AttentionMaps.h"
#include "core/pipeline/AttentionResult.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <set>

namespace attn {

Matrix AttentionDisplay::hideKeys(const Matrix& weights, const std::vector<bool>& hidden, std::vector<int>* empty_rows)
{
    Matrix shown = weights;  // (query_len, key_len)
    for (int query = 0; query < int(shown.rows()); ++query)
        if (!hideKeysInRow(shown.row(query), hidden) && empty_rows)
            empty_rows->push_back(query);
    return shown;
}

std::vector<bool> AttentionDisplay::shownHiddenKeys(const QList<int>& positions, int key_len)
{
    std::vector<bool> hidden(size_t(std::max(0, key_len)), false);
    for (int position : positions)
        if (position >= 0 && position < key_len)
            hidden[size_t(position)] = true;
    if (std::all_of(hidden.begin(), hidden.end(), [](bool h) { return h; }))
        hidden.assign(hidden.size(), false);
    return hidden;
}

Result<std::vector<bool>> AttentionDisplay::hiddenKeys(const QList<int>& positions, int key_len)
{
    std::vector<bool> hidden(size_t(std::max(0, key_len)), false);
    for (int position : positions) {
        if (position < 0 || position >= key_len)
            return Error{
                QStringLiteral("token %1 is outside the input (positions 0 to %2)").arg(position).arg(key_len - 1)};
        hidden[size_t(position)] = true;
    }
    if (key_len > 0 && std::all_of(hidden.begin(), hidden.end(), [](bool h) { return h; }))
        return Error{QStringLiteral("every token would be hidden (%1 of %1)").arg(key_len)};
    return hidden;
}

AttentionResult AttentionDisplay::withHiddenKeys(const AttentionResult& result, const std::vector<bool>& hidden,
                                                 std::vector<int>* empty_rows)
{
    AttentionResult shown = result;
    shown.hidden_keys = hidden;
    shown.derived = std::make_shared<AttentionResult::Derived>();  // of other weights
    std::set<int> empty;
    for (Matrix& weights : shown.trace.probabilities) {
        if (weights.size() == 0 && !shown.trace.keepsEveryHead())
            continue;  // a long input's head not kept: hidden when it is recomputed
        if (shown.value_norms) {  // not a distribution: the hidden keys' columns are 0, nothing renormalised
            for (Eigen::Index key = 0; key < weights.cols() && key < Eigen::Index(hidden.size()); ++key)
                if (hidden[size_t(key)])
                    weights.col(key).setZero();
            continue;
        }
        std::vector<int> rows;
        weights = hideKeys(weights, hidden, &rows);
        empty.insert(rows.begin(), rows.end());
    }
    if (!shown.trace.keepsEveryHead()) {
        shown.trace.cell_blocks.clear();
        shown.trace.row_max.clear();
    }
    if (empty_rows)
        empty_rows->assign(empty.begin(), empty.end());
    return shown;
}

Result<AttentionResult> AttentionDisplay::withValueNorms(const AttentionResult& result, const Matrix& norms)
{
    if (!result.trace.keepsEveryHead())
        return Error{QStringLiteral("value norms need every head's weights, and this long input keeps only one")};
    if (norms.rows() != result.numHeads() || norms.cols() != result.keyLen())
        return Error{QStringLiteral("value norms of shape (%1, %2) for %3 heads and %4 keys")
                         .arg(norms.rows())
                         .arg(norms.cols())
                         .arg(result.numHeads())
                         .arg(result.keyLen())};
    AttentionResult shown = result;
    shown.value_norms = true;
    shown.derived = std::make_shared<AttentionResult::Derived>();  // of other matrices
    for (int head = 0; head < int(shown.trace.probabilities.size()); ++head) {
        Matrix& weights = shown.trace.probabilities[size_t(head)];
        weights = (weights.array().rowwise() * norms.row(head).array()).matrix();
    }
    return shown;
}

Result<AttentionMaps> AttentionDisplay::weighedMaps(const AttentionMaps& maps, const std::vector<Matrix>& norms)
{
    AttentionMaps weighed(maps.numLayers(), maps.numHeads(), maps.seqLen(), maps.isCausal());
    weighed.setSlidingWindow(maps.slidingWindow());
    if (int(norms.size()) != maps.numLayers())
        return Error{QStringLiteral("value norms of %1 layers for %2").arg(norms.size()).arg(maps.numLayers())};
    for (int layer = 0; layer < maps.numLayers(); ++layer) {
        const Matrix& layer_norms = norms[size_t(layer)];
        if (layer_norms.rows() != maps.numHeads() || layer_norms.cols() != maps.seqLen())
            return Error{QStringLiteral("value norms of layer %1 of shape (%2, %3)")
                             .arg(layer)
                             .arg(layer_norms.rows())
                             .arg(layer_norms.cols())};
        std::vector<Matrix> heads = maps.layer(layer);
        for (int head = 0; head < int(heads.size()); ++head)
            heads[size_t(head)] =
                (heads[size_t(head)].array().rowwise() * layer_norms.row(head).array()).matrix();
        weighed.setLayer(layer, std::move(heads));
    }
    return weighed;
}

AttentionMaps AttentionDisplay::rowNormalisedMaps(const AttentionMaps& maps)
{
    AttentionMaps normalised(maps.numLayers(), maps.numHeads(), maps.seqLen(), maps.isCausal());
    normalised.setSlidingWindow(maps.slidingWindow());
    for (int layer = 0; layer < maps.numLayers(); ++layer) {
        std::vector<Matrix> heads = maps.layer(layer);
        for (Matrix& head : heads)
            head = rowNormalised(head);
        normalised.setLayer(layer, std::move(heads));
    }
    return normalised;
}

Matrix AttentionDisplay::rowNormalised(const Matrix& weights)
{
    Matrix normalised = weights;
    for (Eigen::Index row = 0; row < normalised.rows(); ++row) {
        const double mass = normalised.row(row).cast<double>().sum();
        if (mass > 0.0)
            normalised.row(row) = (normalised.row(row).cast<double>() / mass).cast<float>();
    }
    return normalised;
}

std::shared_ptr<const Matrix> AttentionDisplay::headProbabilities(const AttentionResult& result, int head)
{
    const AttentionTrace& trace = result.trace;
    std::shared_ptr<const Matrix> weights = trace.headProbabilities(head);
    const bool recomputed = !trace.keepsEveryHead() && head != trace.kept_head;
    if (!weights || !recomputed || std::find(result.hidden_keys.begin(), result.hidden_keys.end(), true) ==
                                       result.hidden_keys.end())
        return weights;
    return std::make_shared<const Matrix>(hideKeys(*weights, result.hidden_keys));
}

Matrix AttentionDisplay::fuseHeads(const std::vector<Matrix>& heads, Fusion fusion)
{
    if (heads.empty())
        return {};
    Matrix fused = heads.front();  // (query_len, key_len)
    for (size_t head = 1; head < heads.size(); ++head) {
        if (fusion == Fusion::Max)
            fused = fused.cwiseMax(heads[head]);
        else
            fused += heads[head];
    }
    if (fusion == Fusion::Mean)
        fused /= float(heads.size());
    return fused;
}

MaskMatrix AttentionDisplay::topMass(const Matrix& weights, double fraction)
{
    MaskMatrix kept = MaskMatrix::Constant(weights.rows(), weights.cols(), false);
    std::vector<std::pair<float, int>> scratch;
    for (int query = 0; query < int(weights.rows()); ++query) {
        const float* row = weights.row(query).data();  // row-major: contiguous
        const TopMassCut cut = topMassCut(row, int(weights.cols()), fraction, scratch);
        for (int key = 0; key < int(weights.cols()); ++key)
            kept(query, key) = cut.keeps(row[key], key);
    }
    return kept;
}

AttentionDisplay::TopMassCut AttentionDisplay::topMassCut(const float* row, int length, double fraction,
                                                          std::vector<std::pair<float, int>>& scratch)
{
    // The crossing key of the order "strongest first, the lower key first among equals" is found
    // by a radix selection: positive floats order as their bit patterns, so three rounds bin the
    // candidates by 8 bits at a time (exponent, then mantissa), each keeping only the bin where
    // the running mass reaches the target; the few left are sorted. Masses are summed in double.
    double partial[4] = {0.0, 0.0, 0.0, 0.0};  // four chains: one would wait on each addition
    int key = 0;
    for (; key + 4 <= length; key += 4)
        for (int lane = 0; lane < 4; ++lane)
            partial[lane] += row[key + lane];
    for (; key < length; ++key)
        partial[0] += row[key];
    const double total = (partial[0] + partial[1]) + (partial[2] + partial[3]);
    TopMassCut cut;
    if (!(total > 0.0))
        return cut;
    const double target = fraction * total * (1.0 - 1e-6);  // float weights: a row sums to 1 within ~1e-7
    const auto bitsOf = [](float value) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        return bits;
    };
    std::array<double, 256> sums{};
    double above = 0.0;  // the mass of every key stronger than the candidates
    // The bin of the crossing among `sums` (the strongest first); when rounding leaves the target
    // unreached, the weakest non-empty bin (its weakest key is then the cut).
    const auto crossingBin = [&sums, &above, target] {
        int bin = 255;
        for (; bin > 0; --bin) {
            if (sums[size_t(bin)] == 0.0)
                continue;
            if (above + sums[size_t(bin)] >= target)
                return bin;
            above += sums[size_t(bin)];
        }
        if (sums[0] == 0.0) {
            while (bin < 255 && sums[size_t(bin)] == 0.0)
                ++bin;
            above -= sums[size_t(bin)];
        }
        return bin;
    };
    // The first round reads the row itself: positive weights binned by their exponent.
    std::array<std::array<double, 256>, 2> by_exponent{};  // even and odd keys: two chains per bin
    for (int at = 0; at < length; ++at)
        if (row[at] > 0.0f)  // a weight of 0 (masked) is never kept
            by_exponent[size_t(at & 1)][bitsOf(row[at]) >> 23] += row[at];
    for (size_t bin = 0; bin < 256; ++bin)
        sums[bin] = by_exponent[0][bin] + by_exponent[1][bin];
    const int exponent = crossingBin();
    scratch.clear();  // the candidates left, in key order
    for (int at = 0; at < length; ++at)
        if (row[at] > 0.0f && int(bitsOf(row[at]) >> 23) == exponent)
            scratch.emplace_back(row[at], at);
    if (scratch.empty())
        return cut;
    for (int shift : {15, 7}) {
        sums.fill(0.0);
        for (const auto& [value, key] : scratch)
            sums[(bitsOf(value) >> shift) & 0xFF] += value;
        const int bin = crossingBin();
        const auto outside = [&](const std::pair<float, int>& candidate) {
            return int((bitsOf(candidate.first) >> shift) & 0xFF) != bin;
        };
        scratch.erase(std::remove_if(scratch.begin(), scratch.end(), outside), scratch.end());  // keeps key order
    }
    std::sort(scratch.begin(), scratch.end(), [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    for (const auto& [value, key] : scratch) {
        cut = {value, key};
        above += value;
        if (above >= target)
            break;
    }
    return cut;
}

double AttentionDisplay::percentile(const std::vector<Matrix>& heads, const MaskMatrix& mask, double p)
{
    std::vector<float> values;
    for (const Matrix& weights : heads) {
        const bool masked = mask.rows() == weights.rows() && mask.cols() == weights.cols();
        if (!masked) {
            values.insert(values.end(), weights.data(), weights.data() + weights.size());
            continue;
        }
        for (qsizetype i = 0; i < weights.size(); ++i)
            if (!mask.data()[i])
                values.push_back(weights.data()[i]);
    }
    if (values.empty())
        return 0.0;
    // numpy's default ("linear"): position p/100 * (n - 1) between the two order statistics around it.
    const double position = std::clamp(p, 0.0, 100.0) / 100.0 * double(values.size() - 1);
    const size_t below = size_t(position);
    std::nth_element(values.begin(), values.begin() + qsizetype(below), values.end());
    const double low = values[below];
    if (below + 1 >= values.size())
        return low;
    const double high = *std::min_element(values.begin() + qsizetype(below) + 1, values.end());
    return low + (position - double(below)) * (high - low);
}

Matrix AttentionDisplay::perRowScaled(const Matrix& weights, const MaskMatrix& mask)
{
    const bool masked = mask.rows() == weights.rows() && mask.cols() == weights.cols();
    Matrix scaled = weights;  // (query_len, key_len)
    for (int query = 0; query < int(weights.rows()); ++query) {
        float top = 0.0f;
        for (int key = 0; key < int(weights.cols()); ++key)
            if (!masked || !mask(query, key))
                top = std::max(top, weights(query, key));
        if (top > 0.0f)
            scaled.row(query) /= top;
        else
            scaled.row(query).setZero();
    }
    return scaled;
}

}  // namespace attn
