#include "core/ops/VocabularyTopK.h"

#include "core/ops/ParallelWork.h"

#include <algorithm>

#include <omp.h>

namespace attn {
namespace {

// The order of a lens's top K: logit descending, ties: the lower id first.
bool comesBefore(float a, int id_a, float b, int id_b)
{
    return a > b || (a == b && id_a < id_b);
}

// The K best (logit, id) of each of n rows seen so far, best first, in flat arrays.
class TopLists {
public:
    TopLists(Eigen::Index rows, int k)
        : m_k(k), m_ids(size_t(rows) * size_t(k)), m_logits(m_ids.size()), m_sizes(size_t(rows))
    {
    }

    int size(Eigen::Index r) const { return m_sizes[size_t(r)]; }
    int id(Eigen::Index r, int i) const { return m_ids[size_t(r) * size_t(m_k) + size_t(i)]; }
    float logit(Eigen::Index r, int i) const { return m_logits[size_t(r) * size_t(m_k) + size_t(i)]; }

    // The lowest logit that may still enter row r (entries below it cannot).
    float threshold(Eigen::Index r) const
    {
        return size(r) < m_k ? -std::numeric_limits<float>::infinity() : logit(r, m_k - 1);
    }

    void offer(Eigen::Index r, float value, int id)
    {
        int& count = m_sizes[size_t(r)];
        int* ids = &m_ids[size_t(r) * size_t(m_k)];
        float* logits = &m_logits[size_t(r) * size_t(m_k)];
        if (count == m_k && !comesBefore(value, id, logits[m_k - 1], ids[m_k - 1]))
            return;
        int at = std::min(count, m_k - 1);  // the slot it takes, moving the ones after it down
        while (at > 0 && comesBefore(value, id, logits[at - 1], ids[at - 1])) {
            logits[at] = logits[at - 1];
            ids[at] = ids[at - 1];
            --at;
        }
        logits[at] = value;
        ids[at] = id;
        count = std::min(count + 1, m_k);
    }

private:
    int m_k;
    std::vector<int> m_ids;
    std::vector<float> m_logits;
    std::vector<int> m_sizes;
};

// One chunk of logits, z = x W[first .. first + count)^T + b, (n, count).
void chunkLogits(const ConstMatrixRef& x, const ConstMatrixRef& w, const RowVector& bias, Eigen::Index first,
                 Eigen::Index count, Matrix& z)
{
    z.resize(x.rows(), count);
    z.noalias() = x * w.middleRows(first, count).transpose();
    if (bias.size() > 0)
        z.rowwise() += bias.segment(first, count);
}

// The number of entries of z[0, count) above value (at or above it before index `split`: the
// ids below the tracked one, which come first when equal).
int countBefore(const float* z, Eigen::Index count, Eigen::Index split, float value)
{
    int before = 0;
    for (Eigen::Index j = 0; j < split; ++j)
        before += z[j] >= value ? 1 : 0;
    for (Eigen::Index j = split; j < count; ++j)
        before += z[j] > value ? 1 : 0;
    return before;
}

}  // namespace

bool VocabularyTopK::reduce(const ConstMatrixRef& x, const ConstMatrixRef& w, const RowVector& bias, int k,
                            std::optional<int> tracked, std::vector<LogitSummary>& out)
{
    const Eigen::Index n = x.rows();
    const Eigen::Index vocab = w.rows();
    const Eigen::Index chunks = (vocab + kChunk - 1) / kChunk;
    k = int(std::min<Eigen::Index>(k, vocab));
    // Per row and chunk: the chunk's largest logit and its float sum of exp(z - that max).
    std::vector<float> chunk_max(size_t(n) * size_t(chunks));
    std::vector<float> chunk_sum(chunk_max.size());
    std::vector<float> tracked_logit(static_cast<size_t>(n));
    std::vector<int> before(size_t(n), 0);
    std::vector<TopLists> tops;  // one per thread
    bool finite = true;

    const auto reduceChunk = [&](const Matrix& z, Eigen::Index chunk, TopLists& top, int* counts) {
        const Eigen::Index first = chunk * kChunk;
        const Eigen::Index count = z.cols();
        const Eigen::Index split = tracked ? std::clamp<Eigen::Index>(*tracked - first, 0, count) : 0;
        for (Eigen::Index r = 0; r < n; ++r) {
            const float* row = z.row(r).data();
            const Eigen::Map<const Eigen::ArrayXf> values(row, count);
            const float largest = values.maxCoeff();
            chunk_max[size_t(r * chunks + chunk)] = largest;
            chunk_sum[size_t(r * chunks + chunk)] = (values - largest).exp().sum();
            if (largest >= top.threshold(r))
                for (Eigen::Index j = 0; j < count; ++j)
                    if (row[j] >= top.threshold(r))
                        top.offer(r, row[j], int(first + j));
            if (tracked)
                counts[r] += countBefore(row, count, split, tracked_logit[size_t(r)]);
        }
    };

    // The tracked id's chunk first, on its own: every other chunk then counts its ids against
    // the very float logit this chunk holds for it.
    const Eigen::Index tracked_chunk = tracked ? *tracked / kChunk : -1;
    TopLists tracked_top(n, k);
    if (tracked) {
        Matrix z;
        chunkLogits(x, w, bias, tracked_chunk * kChunk, std::min(kChunk, vocab - tracked_chunk * kChunk), z);
        if (!allFinite(z))
            return false;
        for (Eigen::Index r = 0; r < n; ++r)
            tracked_logit[size_t(r)] = z(r, *tracked - tracked_chunk * kChunk);
        reduceChunk(z, tracked_chunk, tracked_top, before.data());
    }

    const bool parallel = std::int64_t(n) * vocab * x.cols() > kParallelWork;
    const int threads = parallel ? omp_get_max_threads() : 1;
    tops.assign(size_t(threads), TopLists(n, k));
    std::vector<std::vector<int>> counts(size_t(threads), std::vector<int>(size_t(n), 0));
#pragma omp parallel num_threads(threads) if (parallel)
    {
        const int thread = omp_get_thread_num();
        Matrix z;  // (n, kChunk): in this core's cache while it is read
        bool ok = true;
#pragma omp for schedule(dynamic)
        for (Eigen::Index chunk = 0; chunk < chunks; ++chunk) {
            if (chunk == tracked_chunk || !ok)
                continue;
            chunkLogits(x, w, bias, chunk * kChunk, std::min(kChunk, vocab - chunk * kChunk), z);
            ok = allFinite(z);
            if (ok)
                reduceChunk(z, chunk, tops[size_t(thread)], counts[size_t(thread)].data());
        }
        if (!ok) {
#pragma omp atomic write
            finite = false;
        }
    }
    if (!finite)
        return false;

    out.assign(size_t(n), LogitSummary{});
    for (Eigen::Index r = 0; r < n; ++r) {
        LogitSummary& s = out[size_t(r)];
        const float* maxima = &chunk_max[size_t(r * chunks)];
        const float* sums = &chunk_sum[size_t(r * chunks)];
        s.max = *std::max_element(maxima, maxima + chunks);
        for (Eigen::Index c = 0; c < chunks; ++c)
            s.exp_sum += double(sums[c]) * std::exp(double(maxima[c]) - double(s.max));
        TopLists merged(1, k);
        const auto mergeFrom = [&merged, r](const TopLists& top) {
            for (int i = 0; i < top.size(r); ++i)
                merged.offer(0, top.logit(r, i), top.id(r, i));
        };
        mergeFrom(tracked_top);
        for (const TopLists& top : tops)
            mergeFrom(top);
        for (int i = 0; i < merged.size(0); ++i) {
            s.top_ids.push_back(merged.id(0, i));
            s.top_logits.push_back(merged.logit(0, i));
        }
        if (tracked) {
            s.tracked_logit = tracked_logit[size_t(r)];
            s.tracked_before = before[size_t(r)];
            for (const auto& thread_counts : counts)
                s.tracked_before += thread_counts[size_t(r)];
        }
    }
    return true;
}

}  // namespace attn
