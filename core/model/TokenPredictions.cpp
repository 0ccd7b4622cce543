#include "core/model/TokenPredictions.h"

#include "core/ops/LayerNorm.h"
#include "core/ops/ParallelWork.h"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

// Rows of logits computed at once: (64, V) floats, 13 MB for GPT-2's vocabulary.
constexpr int kPositionBlock = 64;
// Vocabulary rows multiplied as one product: (512, C) floats, 1.5 MB at C = 768.
constexpr Eigen::Index kVocabBlock = 512;

// The k largest entries of one row of logits, best first (ties: the lower id first).
TokenPrediction largest(const float* logits, int vocab, int k)
{
    TokenPrediction best;
    for (int id = 0; id < vocab; ++id) {
        const float value = logits[id];
        if (int(best.ids.size()) == k && value <= best.logits.back())
            continue;
        auto at = std::upper_bound(best.logits.begin(), best.logits.end(), value, std::greater<float>());
        const auto index = at - best.logits.begin();
        best.logits.insert(at, value);
        best.ids.insert(best.ids.begin() + index, id);
        if (int(best.ids.size()) > k) {
            best.logits.pop_back();
            best.ids.pop_back();
        }
    }
    return best;
}

}  // namespace

Status TokenPredictions::logits(const ModelConfig& config, const ModelWeights& weights, const ConstBlockRef& h,
                                Matrix& logits)
{
    if (!weights.head)
        return Error{QStringLiteral("the checkpoint has no prediction head (%1)").arg(weights.head_missing)};
    const PredictionHeadWeights& head = *weights.head;
    const WeightMatrix& decoder = weights.decoder();
    const auto vocab = decoder.view();  // (V, C)
    Matrix transformed;                 // (n, C): BERT family: dense, activation, LayerNorm
    if (!head.transform.isEmpty()) {
        transformed.resize(h.rows(), config.hidden_size);
        if (!multiply(h, head.transform, head.transform_bias, transformed))
            return Error{QStringLiteral("tensor '%1' contains NaN or infinite values").arg(head.transform.name())};
        applyActivation(config.activation, transformed);
        layerNorm(transformed, head.norm_weight, head.norm_bias, float(config.layer_norm_eps), transformed);
    }
    const ConstBlockRef rows = head.transform.isEmpty() ? h : ConstBlockRef(transformed);
    // A block of the vocabulary at a time, the blocks shared out among the threads: each
    // product packs only its block (in cache), where rows W_vocab^T whole would have Eigen copy
    // the whole (V, C) matrix on one thread before multiplying.
    const Eigen::Index vocab_size = vocab.rows();
    logits.resize(rows.rows(), vocab_size);
    const Eigen::Index blocks = (vocab_size + kVocabBlock - 1) / kVocabBlock;
    const bool parallel = std::int64_t(rows.rows()) * vocab_size * rows.cols() > kParallelWork;
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (Eigen::Index block = 0; block < blocks; ++block) {
        const Eigen::Index first = block * kVocabBlock;
        const Eigen::Index count = std::min(kVocabBlock, vocab_size - first);
        logits.middleCols(first, count).noalias() = rows * vocab.middleRows(first, count).transpose();
    }
    if (head.decoder_bias.size() > 0)
        logits.rowwise() += head.decoder_bias;
    if (!allFinite(logits))
        return Error{QStringLiteral("the logits of '%1' are not finite (NaN or infinite weights)").arg(decoder.name())};
    return {};
}

Result<std::vector<TokenPrediction>> TokenPredictions::topK(const ModelConfig& config, const ModelWeights& weights,
                                                            const Matrix& last_hidden_state,
                                                            const std::vector<int>& positions, int k)
{
    if (!weights.head)
        return Error{QStringLiteral("the checkpoint has no prediction head (%1)").arg(weights.head_missing)};
    for (int p : positions)
        if (p < 0 || p >= last_hidden_state.rows())
            return Error{QStringLiteral("position %1 is outside the input").arg(p)};
    const int count = int(positions.size());
    Matrix h(count, config.hidden_size);  // (P, C): the hidden states at the positions asked
    for (int i = 0; i < count; ++i)
        h.row(i) = last_hidden_state.row(positions[size_t(i)]);

    std::vector<TokenPrediction> predictions;
    predictions.reserve(size_t(count));
    Matrix block_logits;  // (rows, V)
    for (int first = 0; first < count; first += kPositionBlock) {
        const int rows = std::min(kPositionBlock, count - first);
        if (Status s = logits(config, weights, h.middleRows(first, rows), block_logits); !s)
            return Error{s.error()};
        for (int r = 0; r < rows; ++r) {
            TokenPrediction best = largest(block_logits.row(r).data(), int(block_logits.cols()), k);
            best.position = positions[size_t(first + r)];
            predictions.push_back(std::move(best));
        }
    }
    return predictions;
}

}  // namespace attn
