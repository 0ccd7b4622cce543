#include "core/model/RotaryEmbedding.h"

#include <cmath>
#include <numbers>

namespace attn {

std::vector<float> RotaryEmbedding::inverseFrequencies(const ModelConfig& config)
{
    const int dim = config.rotary_dim;
    std::vector<float> inv_freq(size_t(dim / 2));
    // 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)): the exponent and the power in float32.
    for (int i = 0; i < dim / 2; ++i) {
        const float exponent = float(2 * i) / float(dim);
        inv_freq[size_t(i)] = 1.0f / std::pow(float(config.rope_theta), exponent);
    }
    const RopeScaling& s = config.rope_scaling;
    if (s.type == RopeScaling::Type::Linear) {
        for (float& f : inv_freq)
            f = float(f / s.factor);
    } else if (s.type == RopeScaling::Type::Llama3) {
        const double old_context = s.original_max_position_embeddings;
        const double low_freq_wavelen = old_context / s.low_freq_factor;
        const double high_freq_wavelen = old_context / s.high_freq_factor;
        for (float& f : inv_freq) {
            const double wavelen = 2 * std::numbers::pi / f;
            // wavelen < high_freq_wavelen: unchanged; > low_freq_wavelen: divided by factor;
            // between: smoothly interpolated.
            if (wavelen > low_freq_wavelen) {
                f = float(f / s.factor);
            } else if (wavelen >= high_freq_wavelen) {
                const double smooth =
                    (old_context / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
                f = float((1 - smooth) * f / s.factor + smooth * f);
            }
        }
    }
    return inv_freq;
}

RotaryEmbedding::RotaryEmbedding(const ModelConfig& config, int seq_len)
{
    const std::vector<float> inv_freq = inverseFrequencies(config);
    m_half = int(inv_freq.size());
    m_cos.resize(seq_len, m_half);
    m_sin.resize(seq_len, m_half);
    for (int p = 0; p < seq_len; ++p)
        for (int i = 0; i < m_half; ++i) {
            const float angle = float(p) * inv_freq[size_t(i)];  // freqs = inv_freq @ position_ids, float32
            m_cos(p, i) = float(std::cos(double(angle)));
            m_sin(p, i) = float(std::sin(double(angle)));
        }
}

void RotaryEmbedding::apply(MatrixRef projected, int heads, int head_dim, int first_position) const
{
    if (isEmpty())
        return;
    for (Eigen::Index r = 0; r < projected.rows(); ++r) {
        const auto cos = m_cos.row(first_position + r);  // (R/2)
        const auto sin = m_sin.row(first_position + r);
        for (int h = 0; h < heads; ++h) {
            auto first = projected.row(r).segment(Eigen::Index(h) * head_dim, m_half);
            auto second = projected.row(r).segment(Eigen::Index(h) * head_dim + m_half, m_half);
            const RowVector x1 = first;  // (R/2)
            const RowVector x2 = second;
            // q * cos + rotate_half(q) * sin, rotate_half(q) = [-x2, x1]
            first = x1.cwiseProduct(cos) - x2.cwiseProduct(sin);
            second = x2.cwiseProduct(cos) + x1.cwiseProduct(sin);
        }
    }
}

}  // namespace attn
