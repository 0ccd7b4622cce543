#pragma once

#include "core/base/MaskMatrix.h"
#include "core/base/Result.h"
#include "core/base/Tensor.h"
#include "core/model/AttentionMaps.h"

#include <QList>

#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace attn {

struct AttentionResult;

// What the heatmaps draw besides the weights as computed: keys hidden with the rows
// renormalised, heads fused into one, the strongest keys of each row, a percentile of the
// weights. Pure functions of the weights (query_len, key_len), each tested on its own.
struct AttentionDisplay {
    // Weights with the hidden keys' columns set to 0 and every row renormalised to sum 1 over the
    // keys that remain. A row whose remaining weights sum to 0 (every key it sees is hidden) is
    // all zeros and its index is appended to `empty_rows` (when given).
    static Matrix hideKeys(const Matrix& weights, const std::vector<bool>& hidden,
                           std::vector<int>* empty_rows = nullptr);
    // hideKeys on one row, float or double, in place: false when nothing is left (the row is 0).
    template <typename Row>
    static bool hideKeysInRow(Row&& row, const std::vector<bool>& hidden)
    {
        using Scalar = typename std::decay_t<Row>::Scalar;
        for (Eigen::Index key = 0; key < row.size() && key < Eigen::Index(hidden.size()); ++key)
            if (hidden[size_t(key)])
                row(key) = Scalar(0);
        // Summed in double: a row of thousands of small weights loses digits in float.
        const double mass = row.template cast<double>().sum();
        if (mass > 0.0) {
            row = (row.template cast<double>() / mass).template cast<Scalar>();
            return true;
        }
        row.setZero();
        return false;
    }
    // The keys a view hides of these positions: those inside 0..key_len-1, or none when that is
    // every key (hiding all would leave nothing: the weights are shown as computed).
    static std::vector<bool> shownHiddenKeys(const QList<int>& positions, int key_len);

    // Checks 0-based key positions against a key length: every position inside 0..key_len-1,
    // not all of them hidden. Returns the per-key flags.
    static Result<std::vector<bool>> hiddenKeys(const QList<int>& positions, int key_len);

    // The result as the views show it with these keys hidden: every head's weights renormalised
    // (hideKeys), everything else as computed. The rows left without a key are listed in
    // `empty_rows` (when given), once per row over all heads.
    // A long input's result (one head kept, AttentionTrace::keepsEveryHead false): the kept head
    // is renormalised, the others are when recomputed (headProbabilities), and its cell blocks and row
    // maxima, which were of the probabilities as computed, are dropped; `empty_rows` is then the kept
    // head's only.
    static AttentionResult withHiddenKeys(const AttentionResult& result, const std::vector<bool>& hidden,
                                          std::vector<int>* empty_rows = nullptr);
    // Value-weighted attention (AttentionNorms): every head's weights times its keys' value norms
    // `norms` (H, key_len), column by column, marked value_norms; the rows are not renormalised.
    // An error for a long input (only one head's weights kept) or norms of another shape.
    static Result<AttentionResult> withValueNorms(const AttentionResult& result, const Matrix& norms);
    // The same for a whole model's maps: every layer l times norms[l] (H, T).
    static Result<AttentionMaps> weighedMaps(const AttentionMaps& maps, const std::vector<Matrix>& norms);
    // Every row of every layer and head divided by its sum: value-weighted maps as distributions,
    // for the rollout and the head scores.
    static AttentionMaps rowNormalisedMaps(const AttentionMaps& maps);
    // Each row divided by its sum (a row summing to 0 stays 0): value-weighted attention as a
    // distribution, for what is defined on distributions (entropy, divergences, rollout).
    static Matrix rowNormalised(const Matrix& weights);

    // Head `head`'s weights (query_len, key_len) as the views show them: the trace's, or for a
    // long input's heads that were not kept recomputed (AttentionTrace::headProbabilities), the hidden
    // keys then hidden. Null when there is no such head. The pointer may share the result's
    // matrix without owning it: keep the result alive meanwhile.
    static std::shared_ptr<const Matrix> headProbabilities(const AttentionResult& result, int head);

    enum class Fusion { Mean, Max };
    // Element-wise over heads (all of one shape): the mean or the maximum.
    static Matrix fuseHeads(const std::vector<Matrix>& heads, Fusion fusion);

    // exBERT's "top X %": per row, the strongest keys whose weights together reach `fraction`
    // (0 < fraction <= 1) of the row's total, strongest first; the key that crosses the line is
    // kept, ties broken by the lower key. True = kept; a weight of 0 (masked) is never kept.
    static MaskMatrix topMass(const Matrix& weights, double fraction);

    // The same for one row, as the last key kept in that order: a key is kept when its weight is
    // above `weight`, or equal to it at a key up to `key`. Nothing is kept: weight = +infinity.
    // A heatmap drawn reduced dims a block from these cuts without a mask of the matrix's size.
    struct TopMassCut {
        float weight = std::numeric_limits<float>::infinity();
        int key = -1;
        bool keeps(float value, int at) const { return value > weight || (value == weight && at <= key); }
    };
    // `row` holds `length` weights; `scratch` is reused between rows (expected O(length): a
    // selection by weighted partitions, not a sort).
    static TopMassCut topMassCut(const float* row, int length, double fraction,
                                 std::vector<std::pair<float, int>>& scratch);

    // The p-th percentile (0 <= p <= 100, linear interpolation between order statistics, as
    // numpy.percentile) of every head's weights outside `mask` (empty: no cell masked). 0 when
    // no cell is left.
    static double percentile(const std::vector<Matrix>& heads, const MaskMatrix& mask, double p);

    // Each row divided by its largest weight outside `mask` (a row without a positive weight stays 0).
    static Matrix perRowScaled(const Matrix& weights, const MaskMatrix& mask);
};

}  // namespace attn
