#pragma once

#include "core/model/ModelConfig.h"
#include "core/model/ModelWeights.h"

#include <vector>

namespace attn {

// The k most likely tokens at one position, by the model's LM / MLM head, best first.
struct TokenPrediction {
    int position = 0;
    std::vector<int> ids;
    std::vector<float> logits;
};

// What the head predicts (GPT-2's tied LM head: the next token after each position; BERT's and
// DistilBERT's MLM head: the token at a [MASK]):
//   GPT-2:       logits = h W_vocab^T                      (h = last_hidden_state, after ln_f)
//   BERT family: logits = LN(act(h W_t + b_t)) W_vocab^T + b
// W_vocab (V, C) is the word embeddings when tied. Needs weights.head.
class TokenPredictions {
public:
    // The head's logits of hidden-state rows: h (n, C) -> logits (n, V), resized. Refuses a
    // checkpoint without a head and non-finite results (NaN or infinite weights).
    static Status logits(const ModelConfig& config, const ModelWeights& weights, const ConstBlockRef& h,
                         Matrix& logits);

    // last_hidden_state (T, C); positions in [0, T).
    static Result<std::vector<TokenPrediction>> topK(const ModelConfig& config, const ModelWeights& weights,
                                                     const Matrix& last_hidden_state, const std::vector<int>& positions,
                                                     int k = 5);
};

}  // namespace attn
