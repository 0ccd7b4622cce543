#include "core/model/TokenSampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attn {

int TokenSampler::argmax(const float* logits, int vocab)
{
    int best = 0;
    for (int id = 1; id < vocab; ++id)
        if (logits[id] > logits[best])
            best = id;
    return best;
}

int TokenSampler::choose(const float* logits, int vocab)
{
    if (!m_settings.sample)
        return argmax(logits, vocab);
    constexpr double kRemoved = -std::numeric_limits<double>::infinity();
    m_scores.resize(size_t(vocab));
    for (int id = 0; id < vocab; ++id)
        m_scores[size_t(id)] = double(logits[id]) / m_settings.temperature;

    if (m_settings.top_k > 0 && m_settings.top_k < vocab) {
        // The k-th largest score; every score below it is removed (ties with it stay).
        std::vector<double> sorted(m_scores);
        std::nth_element(sorted.begin(), sorted.begin() + (m_settings.top_k - 1), sorted.end(), std::greater<double>());
        const double kth = sorted[size_t(m_settings.top_k - 1)];
        for (double& score : m_scores)
            if (score < kth)
                score = kRemoved;
    }
    if (m_settings.top_p < 1.0) {
        // Ascending by score; among equal scores the higher id first, so that the lower id is
        // the one kept at the boundary (greedy's tie rule).
        m_order.resize(size_t(vocab));
        std::iota(m_order.begin(), m_order.end(), 0);
        std::sort(m_order.begin(), m_order.end(), [this](int a, int b) {
            const double sa = m_scores[size_t(a)], sb = m_scores[size_t(b)];
            return sa != sb ? sa < sb : a > b;
        });
        const double largest = m_scores[size_t(m_order.back())];
        double total = 0.0;
        for (int id : m_order)
            total += std::exp(m_scores[size_t(id)] - largest);
        double cumulative = 0.0;
        for (int i = 0; i + 1 < vocab; ++i) {  // the last (largest) entry is always kept
            const int id = m_order[size_t(i)];
            cumulative += std::exp(m_scores[size_t(id)] - largest) / total;
            if (cumulative <= 1.0 - m_settings.top_p)
                m_scores[size_t(id)] = kRemoved;
        }
    }

    const double largest = *std::max_element(m_scores.begin(), m_scores.end());
    double total = 0.0;
    for (double& score : m_scores) {
        score = std::exp(score - largest);  // 0 for removed entries
        total += score;
    }
    const double target = m_random.uniform() * total;
    double cumulative = 0.0;
    int last = 0;
    for (int id = 0; id < vocab; ++id) {
        if (m_scores[size_t(id)] == 0.0)
            continue;
        cumulative += m_scores[size_t(id)];
        last = id;
        if (cumulative > target)
            return id;
    }
    return last;  // rounding left the draw past the sum: the last id kept
}

}  // namespace attn
