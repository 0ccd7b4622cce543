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
    std::vector<int> order(size_t(weights.cols()));
    for (int query = 0; query < int(weights.rows()); ++query) {
        const auto row = weights.row(query);
        const double total = row.cast<double>().sum();
        if (!(total > 0.0))
            continue;
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&row](int a, int b) { return row(a) > row(b); });
        double mass = 0.0;
        for (int key : order) {
            if (!(row(key) > 0.0f))
                break;
            kept(query, key) = true;
            mass += row(key);
            if (mass >= fraction * total * (1.0 - 1e-6))  // float weights: a row sums to 1 within ~1e-7
                break;
        }
    }
    return kept;
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
