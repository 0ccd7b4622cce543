#pragma once

#include "core/base/Result.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelWeights.h"

#include <QString>

#include <functional>
#include <optional>

namespace attn {

// The metric's tokens: TARGET and, for a logit difference, FOIL.
struct MetricTokens {
    int target = 0;
    std::optional<int> foil;
};

// The metric: logit(TARGET) at a position, or logit(TARGET) - logit(FOIL), by the model's own head
// on last_hidden_state.
class LogitMetric {
public:
    // A vocabulary string's id (the tokenizer's exact spelling: "Ġcat", "##ing"), none when no
    // entry is spelled so; a null function: there is no tokenizer.
    using TokenLookup = std::function<std::optional<int>(const QString&)>;

    // "TARGET[,FOIL]", split at the first comma. A token of decimal digits only is an id (inside
    // the vocabulary); anything else must be exactly one entry of the vocabulary. Messages name
    // the token.
    static Result<MetricTokens> parse(const QString& text, int vocab_size, const TokenLookup& lookup);
    static Result<int> parseToken(const QString& token, int vocab_size, const TokenLookup& lookup);

    // logit(target) - logit(foil) (or logit(target)) at `position` of the run's last hidden state.
    static Result<double> value(const ModelConfig& config, const ModelWeights& weights, const ModelRun& run,
                                int position, const MetricTokens& tokens);
};

}  // namespace attn
