#include "core/lens/LogitLens.h"

#include "core/lens/ResidualRows.h"
#include "core/ops/Activation.h"
#include "core/ops/LayerNorm.h"
#include "core/ops/VocabularyTopK.h"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

// A row's summary as a lens cell: the top K with p = exp(z - max) / sum exp(z - max) in double,
// and the tracked token's p and rank.
LensCell cellOf(const LogitSummary& summary, std::optional<int> tracked)
{
    LensCell cell;
    cell.top.reserve(summary.top_ids.size());
    for (size_t i = 0; i < summary.top_ids.size(); ++i)
        cell.top.push_back({summary.top_ids[i], summary.probability(summary.top_logits[i])});
    if (tracked) {
        cell.tracked_rank = summary.tracked_before;
        cell.tracked_p = summary.probability(summary.tracked_logit);
    }
    return cell;
}

// Positions per block after the last one: every row (layer) of a block goes through the
// vocabulary together, so the unembedding is read once per block. The normed rows of a block,
// (L + 1) x positions x C floats, hold no more than kRows rows of logits would.
int positionsPerBlock(const ModelConfig& config)
{
    const std::int64_t rows_of_logits = std::int64_t(LogitLens::kRows) * config.vocab_size;
    const std::int64_t row_floats = std::int64_t(config.num_layers + 1) * config.hidden_size;
    return int(std::clamp<std::int64_t>(rows_of_logits / std::max<std::int64_t>(row_floats, 1), 1, LogitLens::kRows));
}

}  // namespace

std::int64_t LogitLens::extraBytes(const ModelConfig& config, int seq_len, int top_k)
{
    const std::int64_t rows = kRows;
    const std::int64_t logits = rows * config.vocab_size * 4;
    const std::int64_t normed = rows * config.hidden_size * 4 * 2;  // the rows and their norm
    const std::int64_t cells = std::int64_t(config.num_layers + 1) * seq_len *
                               (std::int64_t(sizeof(LensCell)) + std::int64_t(top_k) * std::int64_t(sizeof(LensEntry)));
    return logits + normed + cells;
}

Result<LensResult> LogitLens::compute(const ModelConfig& config, const ModelWeights& weights, const ModelRun& run,
                                      const LensRequest& request,
                                      const std::function<bool(const LensResult&)>& progress)
{
    if (!weights.head)
        return Error{QStringLiteral("the model has no prediction head (%1)").arg(weights.head_missing)};
    if (request.top_k < 1 || request.top_k > kMaxTopK)
        return Error{QStringLiteral("top K %1 is outside 1..%2").arg(request.top_k).arg(kMaxTopK)};
    if (request.tracked && (*request.tracked < 0 || *request.tracked >= config.vocab_size))
        return Error{QStringLiteral("token id %1 is outside the vocabulary (ids 0 to %2)")
                         .arg(*request.tracked)
                         .arg(config.vocab_size - 1)};
    if (Status s = ResidualRows::check(config, run); !s)
        return Error{s.error()};

    const int seq_len = run.seqLen();
    const int num_rows = config.num_layers + 1;
    LensResult result;
    result.num_rows = num_rows;
    result.seq_len = seq_len;
    result.top_k = std::min(request.top_k, config.vocab_size);
    result.tracked = request.tracked;
    result.cells.resize(size_t(num_rows) * size_t(seq_len));
    result.done.assign(size_t(seq_len), false);

    const PredictionHeadWeights& head = *weights.head;
    Matrix rows;         // (n, C): hidden-state rows, normed as the lens reads them
    Matrix transformed;  // (n, C): BERT family: through the head's dense, activation, LayerNorm
    std::vector<LogitSummary> summaries;
    // Rows n of `rows`, cells[i] the (layer, position) of row i, through the head.
    const auto reduceBlock = [&](const std::vector<std::pair<int, int>>& cells) -> Status {
        if (!head.transform.isEmpty()) {
            transformed.resize(rows.rows(), config.hidden_size);
            if (!multiply(rows, head.transform, head.transform_bias, transformed))
                return Error{QStringLiteral("tensor '%1' contains NaN or infinite values").arg(head.transform.name())};
            applyActivation(config.activation, transformed);
            layerNorm(transformed, head.norm_weight, head.norm_bias, float(config.layer_norm_eps), transformed);
        }
        const WeightMatrix& decoder = weights.decoder();
        if (!VocabularyTopK::reduce(head.transform.isEmpty() ? rows : transformed, decoder.view(), head.decoder_bias,
                                    result.top_k, request.tracked, summaries))
            return Error{
                QStringLiteral("the logits of '%1' are not finite (NaN or infinite weights)").arg(decoder.name())};
        for (size_t i = 0; i < cells.size(); ++i)
            result.at(cells[i].first, cells[i].second) = cellOf(summaries[i], request.tracked);
        return {};
    };

    // The last position first: every row of it in one pass over the vocabulary.
    {
        const int last = seq_len - 1;
        rows.resize(num_rows, config.hidden_size);
        std::vector<std::pair<int, int>> cells;
        for (int l = 0; l < num_rows; ++l) {
            ResidualRows::lensRows(config, weights, run, l, last, 1, rows.middleRows(l, 1));
            cells.emplace_back(l, last);
        }
        if (Status s = reduceBlock(cells); !s)
            return Error{s.error()};
        result.done[size_t(last)] = true;
        if (progress && !progress(result))
            return result;
    }
    // The other positions in blocks from the end, every row (layer) of a block in one pass.
    const int block = positionsPerBlock(config);
    for (int end = seq_len - 1; end > 0; end -= block) {
        const int first = std::max(0, end - block);
        const int count = end - first;
        rows.resize(std::int64_t(num_rows) * count, config.hidden_size);
        std::vector<std::pair<int, int>> cells;
        cells.reserve(size_t(num_rows) * size_t(count));
        for (int l = 0; l < num_rows; ++l) {
            ResidualRows::lensRows(config, weights, run, l, first, count,
                                   rows.middleRows(std::int64_t(l) * count, count));
            for (int t = first; t < end; ++t)
                cells.emplace_back(l, t);
        }
        if (Status s = reduceBlock(cells); !s)
            return Error{s.error()};
        std::fill(result.done.begin() + first, result.done.begin() + end, true);
        if (progress && !progress(result))
            return result;
    }
    return result;
}

}  // namespace attn
