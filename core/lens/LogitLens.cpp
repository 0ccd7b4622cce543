#include "core/lens/LogitLens.h"

#include "core/lens/ResidualRows.h"
#include "core/model/TokenPredictions.h"
#include "core/ops/ParallelWork.h"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

// One row of logits (V) reduced to a cell: the top K by logit (the order of p, which is
// monotone in the logit; ties: the lower id first), p = exp(z - max) / sum exp(z - max) in
// double for the entries kept, and the tracked token's p and rank.
LensCell reduceRow(const float* logits, int vocab, int k, std::optional<int> tracked)
{
    const Eigen::Map<const Eigen::ArrayXf> z(logits, vocab);
    const float top = z.maxCoeff();
    const double sum = double((z - top).exp().sum());

    std::vector<int> ids;  // best first
    std::vector<float> values;
    ids.reserve(size_t(k) + 1);
    values.reserve(size_t(k) + 1);
    for (int id = 0; id < vocab; ++id) {
        const float value = logits[id];
        if (int(ids.size()) == k && value <= values.back())
            continue;
        auto at = std::upper_bound(values.begin(), values.end(), value, std::greater<float>());
        const auto index = at - values.begin();
        values.insert(at, value);
        ids.insert(ids.begin() + index, id);
        if (int(ids.size()) > k) {
            values.pop_back();
            ids.pop_back();
        }
    }
    LensCell cell;
    cell.top.reserve(ids.size());
    for (size_t i = 0; i < ids.size(); ++i)
        cell.top.push_back({ids[i], std::exp(double(values[i]) - double(top)) / sum});
    if (tracked) {
        const int t = *tracked;
        const float value = logits[t];
        int before = 0;
        for (int id = 0; id < vocab; ++id)
            before += logits[id] > value || (logits[id] == value && id < t);
        cell.tracked_rank = before;
        cell.tracked_p = std::exp(double(value) - double(top)) / sum;
    }
    return cell;
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

    Matrix rows;    // (n, C): hidden-state rows, normed as the lens reads them
    Matrix logits;  // (n, V)
    const auto reduceBlock = [&](const std::vector<std::pair<int, int>>& cells) {
        const int n = int(logits.rows());
        const int vocab = int(logits.cols());
        const bool parallel = std::int64_t(n) * vocab * 8 > kParallelWork;
#pragma omp parallel for schedule(static) if (parallel)
        for (int r = 0; r < n; ++r)
            result.at(cells[size_t(r)].first, cells[size_t(r)].second) =
                reduceRow(logits.row(r).data(), vocab, result.top_k, request.tracked);
    };

    // The last position first: every row of it in one product.
    {
        const int last = seq_len - 1;
        rows.resize(num_rows, config.hidden_size);
        std::vector<std::pair<int, int>> cells;
        for (int l = 0; l < num_rows; ++l) {
            ResidualRows::lensRows(config, weights, run, l, last, 1, rows.middleRows(l, 1));
            cells.emplace_back(l, last);
        }
        if (Status s = TokenPredictions::logits(config, weights, rows, logits); !s)
            return Error{s.error()};
        reduceBlock(cells);
        result.done[size_t(last)] = true;
        if (progress && !progress(result))
            return result;
    }
    // The other positions in blocks from the end, every row of a block before the next block.
    for (int end = seq_len - 1; end > 0; end -= kRows) {
        const int first = std::max(0, end - kRows);
        const int count = end - first;
        rows.resize(count, config.hidden_size);
        for (int l = 0; l < num_rows; ++l) {
            ResidualRows::lensRows(config, weights, run, l, first, count, rows);
            if (Status s = TokenPredictions::logits(config, weights, rows, logits); !s)
                return Error{s.error()};
            std::vector<std::pair<int, int>> cells;
            cells.reserve(size_t(count));
            for (int t = first; t < end; ++t)
                cells.emplace_back(l, t);
            reduceBlock(cells);
        }
        std::fill(result.done.begin() + first, result.done.begin() + end, true);
        if (progress && !progress(result))
            return result;
    }
    return result;
}

}  // namespace attn
