#include "core/model/TokenPredictions.h"

#include "core/ops/LayerNorm.h"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

// Rows of logits computed at once: (64, V) floats, 13 MB for GPT-2's vocabulary.
constexpr int kPositionBlock = 64;

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
    const auto vocab = decoder.view();                     // (V, C)
    if (!head.transform.isEmpty()) {                       // BERT family: dense, activation, LayerNorm
        Matrix transformed(h.rows(), config.hidden_size);  // (n, C)
        if (!multiply(h, head.transform, head.transform_bias, transformed))
            return Error{QStringLiteral("tensor '%1' contains NaN or infinite values").arg(head.transform.name())};
        applyActivation(config.activation, transformed);
        layerNorm(transformed, head.norm_weight, head.norm_bias, float(config.layer_norm_eps), transformed);
        logits.noalias() = transformed * vocab.transpose();  // (n, V)
    } else {
        logits.noalias() = h * vocab.transpose();  // (n, V)
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
