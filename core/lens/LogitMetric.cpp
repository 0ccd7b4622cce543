#include "core/lens/LogitMetric.h"

#include "core/model/TokenPredictions.h"

#include <cmath>

namespace attn {

Result<int> LogitMetric::parseToken(const QString& token, int vocab_size, const TokenLookup& lookup)
{
    if (token.isEmpty())
        return Error{QStringLiteral("a token is empty")};
    const bool digits = std::all_of(token.begin(), token.end(), [](QChar c) { return c >= u'0' && c <= u'9'; });
    if (digits) {
        bool ok = false;
        const qlonglong id = token.toLongLong(&ok);
        if (!ok || id >= vocab_size)
            return Error{
                QStringLiteral("token id %1 is outside the vocabulary (ids 0 to %2)").arg(token).arg(vocab_size - 1)};
        return int(id);
    }
    if (!lookup)
        return Error{
            QStringLiteral("'%1' is not a token id, and the model folder has no tokenizer to look it up").arg(token)};
    const std::optional<int> id = lookup(token);
    if (!id)
        return Error{QStringLiteral("'%1' is not a token of the vocabulary").arg(token)};
    return *id;
}

Result<MetricTokens> LogitMetric::parse(const QString& text, int vocab_size, const TokenLookup& lookup)
{
    const qsizetype comma = text.indexOf(u',');
    const QString target_text = comma < 0 ? text : text.left(comma);
    MetricTokens tokens;
    auto target = parseToken(target_text, vocab_size, lookup);
    if (!target)
        return Error{target.error()};
    tokens.target = *target;
    if (comma >= 0) {
        auto foil = parseToken(text.mid(comma + 1), vocab_size, lookup);
        if (!foil)
            return Error{foil.error()};
        tokens.foil = *foil;
    }
    return tokens;
}

Result<double> LogitMetric::value(const ModelConfig& config, const ModelWeights& weights, const ModelRun& run,
                                  int position, const MetricTokens& tokens)
{
    if (position < 0 || position >= run.seqLen())
        return Error{
            QStringLiteral("position %1 is outside the input (positions 0 to %2)").arg(position).arg(run.seqLen() - 1)};
    if (weights.head && weights.head->transform.isEmpty()) {
        // Only the metric's one or two logits, h . W_U[id] (+ the head's bias): the whole row of
        // the head would cost V x C multiply-adds for them.
        const auto h = run.last_hidden_state.row(position).cast<double>();  // (C)
        const auto vocab = weights.decoder().view();                        // (V, C)
        const RowVector& bias = weights.head->decoder_bias;
        const auto logit = [&](int id) {
            return h.dot(vocab.row(id).cast<double>()) + (bias.size() > 0 ? double(bias(id)) : 0.0);
        };
        const double value = logit(tokens.target) - (tokens.foil ? logit(*tokens.foil) : 0.0);
        if (!std::isfinite(value))
            return Error{QStringLiteral("the logits of '%1' are not finite (NaN or infinite weights)")
                             .arg(weights.decoder().name())};
        return value;
    }
    Matrix logits;  // (1, V): the BERT family's head transforms the row first
    if (Status s = TokenPredictions::logits(config, weights, run.last_hidden_state.middleRows(position, 1), logits); !s)
        return Error{s.error()};
    double value = double(logits(0, tokens.target));
    if (tokens.foil)
        value -= double(logits(0, *tokens.foil));
    return value;
}

}  // namespace attn
