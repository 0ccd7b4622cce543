#include "core/analysis/AttentionDisplay.h"

#include "core/pipeline/AttentionResult.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace attn {

Matrix AttentionDisplay::hideKeys(const Matrix& weights, const std::vector<bool>& hidden, std::vector<int>* empty_rows)
{
    Matrix shown = weights;  // (query_len, key_len)
    for (int key = 0; key < int(shown.cols()) && key < int(hidden.size()); ++key)
        if (hidden[size_t(key)])
            shown.col(key).setZero();
    for (int query = 0; query < int(shown.rows()); ++query) {
        // Summed in double: a row of thousands of small weights loses digits in float.
        const double mass = shown.row(query).cast<double>().sum();
        if (mass > 0.0) {
            shown.row(query) = (shown.row(query).cast<double>() / mass).cast<float>();
        } else {
            shown.row(query).setZero();
            if (empty_rows)
                empty_rows->push_back(query);
        }
    }
    return shown;
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
    std::set<int> empty;
    for (Matrix& weights : shown.trace.weights) {
        std::vector<int> rows;
        weights = hideKeys(weights, hidden, &rows);
        empty.insert(rows.begin(), rows.end());
    }
    if (empty_rows)
        empty_rows->assign(empty.begin(), empty.end());
    return shown;
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
    // Candidates (weight, key), strongest first and the lower key first among equals; a weight of
    // 0 (masked) is never kept.
    scratch.clear();
    double total = 0.0;
    for (int key = 0; key < length; ++key) {
        total += row[key];
        if (row[key] > 0.0f)
            scratch.emplace_back(row[key], key);
    }
    TopMassCut cut;
    if (!(total > 0.0) || scratch.empty())
        return cut;
    const auto before = [](const std::pair<float, int>& a, const std::pair<float, int>& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    };
    // The shortest prefix in that order whose mass reaches the target (float weights: a row sums
    // to 1 within ~1e-7). Each round splits [low, high) around a pivot and keeps the side that
    // holds the crossing; `mass` is what the prefix before `low` holds.
    const double target = fraction * total * (1.0 - 1e-6);
    double mass = 0.0;
    size_t low = 0;
    size_t high = scratch.size();
    while (high - low > 16) {
        const size_t middle = low + (high - low) / 2;
        std::nth_element(scratch.begin() + std::ptrdiff_t(low), scratch.begin() + std::ptrdiff_t(middle),
                         scratch.begin() + std::ptrdiff_t(high), before);
        double front = 0.0;  // [low, middle]: the pivot is the last of the front
        for (size_t i = low; i <= middle; ++i)
            front += scratch[i].first;
        if (mass + front >= target) {
            high = middle + 1;
        } else {
            mass += front;
            low = middle + 1;
        }
    }
    std::sort(scratch.begin() + std::ptrdiff_t(low), scratch.begin() + std::ptrdiff_t(high), before);
    size_t last = low < high ? low : scratch.size() - 1;
    for (size_t i = low; i < high; ++i) {
        last = i;
        mass += scratch[i].first;
        if (mass >= target)
            break;
    }
    cut.weight = scratch[last].first;
    cut.key = scratch[last].second;
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
