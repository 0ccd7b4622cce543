#pragma once

#include "core/analysis/HeadMetrics.h"
#include "core/base/Result.h"
#include "core/base/Tensor.h"
#include "core/pipeline/RunSettings.h"
#include "core/weights/LoadedWeights.h"

#include <QString>

#include <optional>

namespace attn {

struct AttentionResult;

// Two heads' weights on one colour scale, and their difference on a diverging scale centred at 0.
struct HeadComparison {
    Matrix a;                 // (query_len, key_len)
    Matrix b;                 // (query_len, key_len)
    Matrix difference;        // (query_len, key_len): a - b, cell by cell
    float shared_min = 0.0f;  // the one colour range of a and b: [shared_min, shared_max]
    float shared_max = 1.0f;
    float difference_limit = 1.0f;  // the diverging range is [-limit, +limit], never empty
    float largest_difference = 0.0f;  // max |a - b|
    double divergence = 0.0;        // jensenShannon(a, b): 0 = the same, ln 2 = disjoint
    HeadMetric metric_a;            // computeHeadMetrics(a), b's: the caption's numbers
    HeadMetric metric_b;
    // The percentile colour scale's tops of a and b outside their masks, when computed with the
    // comparison (a long input's, on a worker); otherwise the figure computes them when asked.
    std::optional<double> percentile_a;
    std::optional<double> percentile_b;
};

// The pure half of the compare view: which numbers go into its three heatmaps.
class CompareData {
public:
    // Refuses matrices of different shapes (the heads of two inputs of different lengths).
    static Result<HeadComparison> compare(Matrix a, Matrix b);  // (query_len, key_len) each

    // One head of a result, checked: "head 9 is out of range: the model has 8 heads, 0 to 7".
    static Result<Matrix> headProbabilities(const AttentionResult& result, int head);

    // Side B under other settings: the same input as `base` through `config` (another causal
    // setting, seed, layer or weight file) and `weights`, built or loaded from `config` by the
    // caller (once, and kept while only the causal setting or the input changes). With a sentence
    // the input is embedded again under `config` (a new seed gives new embeddings, the weights fix
    // the input size), as the window does; without one (a matrix input) base's rows are reused as
    // they are. The result must have as many tokens as base. block_factor > 0: a long input's
    // route (AttentionPipeline::blockFactorFor), head 0's weights kept, the others recomputed.
    static Result<AttentionResult> runVariant(const AttentionResult& base, const RunSettings& config,
                                              const LoadedWeights& weights, const QString& sentence,
                                              int block_factor = 0);
    // The same, building or loading the weights from `config` first.
    static Result<AttentionResult> runVariant(const AttentionResult& base, const RunSettings& config,
                                              const QString& sentence);

    // A short text for what differs between two configurations: "causal", "seed 3", "layer 2",
    // "gpt2.safetensors"; empty when they are the same.
    static QString describeDifference(const RunSettings& base, const RunSettings& other);
};

}  // namespace attn
