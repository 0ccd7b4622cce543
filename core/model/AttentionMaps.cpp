#include "core/model/AttentionMaps.h"

#include <algorithm>

namespace attn {

AttentionMaps::AttentionMaps(int num_layers, int num_heads, int seq_len, bool causal)
    : m_layers(num_layers), m_heads(num_heads), m_seq_len(seq_len), m_causal(causal)
{
    // Sizes checked by the caller (TransformerForward::checkInput). Not zeroed: every stored
    // weight is written by setLayer, and untouched pages cost nothing.
    if (causal)
        m_packed.reset(new float[size_t(std::int64_t(num_layers) * num_heads * triangle())]);
    else
        m_full.resize(size_t(num_layers) * size_t(num_heads));
}

void AttentionMaps::setLayer(int layer, std::vector<Matrix>&& heads)
{
    if (!m_causal) {
        for (int h = 0; h < m_heads; ++h)
            m_full[size_t(layer * m_heads + h)] = std::move(heads[size_t(h)]);
        return;
    }
    const std::int64_t work = std::int64_t(m_heads) * triangle();
#pragma omp parallel for if (work >= (std::int64_t(1) << 20)) schedule(static)
    for (int h = 0; h < m_heads; ++h) {
        const Matrix& weights = heads[size_t(h)];  // (T, T)
        float* packed = m_packed.get() + (std::int64_t(layer) * m_heads + h) * triangle();
        for (int i = 0; i < m_seq_len; ++i)
            packed = std::copy_n(weights.row(i).data(), i + 1, packed);
    }
    heads.clear();
}

void AttentionMaps::setRows(int layer, int first_query, const std::vector<Matrix>& heads)
{
    for (int h = 0; h < m_heads; ++h) {
        const Matrix& weights = heads[size_t(h)];  // (rows, key_len)
        for (int r = 0; r < int(weights.rows()); ++r) {
            const int query = first_query + r;
            std::copy_n(weights.row(r).data(), query + 1, m_packed.get() + packedRow(layer, h, query));
        }
    }
}

void AttentionMaps::copyRows(const AttentionMaps& earlier, int rows)
{
    const std::int64_t prefix = std::int64_t(rows) * (rows + 1) / 2;  // a head's first `rows` rows
    for (int layer = 0; layer < m_layers; ++layer)
        for (int h = 0; h < m_heads; ++h)
            std::copy_n(earlier.row(layer, h, 0), prefix, m_packed.get() + packedRow(layer, h, 0));
}

const float* AttentionMaps::row(int layer, int head, int query) const
{
    if (!m_causal)
        return m_full[size_t(layer * m_heads + head)].row(query).data();
    return m_packed.get() + packedRow(layer, head, query);
}

float AttentionMaps::at(int layer, int head, int query, int key) const
{
    return key < rowLength(query) ? row(layer, head, query)[key] : 0.0f;
}

Matrix AttentionMaps::head(int layer, int head) const
{
    if (!m_causal)
        return m_full[size_t(layer * m_heads + head)];
    Matrix weights = Matrix::Zero(m_seq_len, m_seq_len);  // (T, T)
    for (int i = 0; i < m_seq_len; ++i)
        std::copy_n(row(layer, head, i), i + 1, weights.row(i).data());
    return weights;
}

std::vector<Matrix> AttentionMaps::layer(int layer) const
{
    std::vector<Matrix> heads;
    for (int h = 0; h < m_heads; ++h)
        heads.push_back(head(layer, h));
    return heads;
}

}  // namespace attn
