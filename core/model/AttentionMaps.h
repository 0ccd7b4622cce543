#pragma once

#include "core/base/Tensor.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace attn {

// The attention weights of every layer and head of one run, (L, H, T, T), kept compactly: a
// causal model's map stores only its lower triangle (row i holds keys 0..i; the entries above
// the diagonal are exactly 0 and are not stored), which halves the memory of a long run
// (GPT-2 small at T = 1024: 302 MB instead of 604 MB). Other maps are kept as the engine made them.
class AttentionMaps {
public:
    AttentionMaps() = default;
    AttentionMaps(int num_layers, int num_heads, int seq_len, bool causal);

    // One layer's weights, num_heads x (T, T), as AttentionTrace::weights holds them; taken over
    // (not copied) when the maps are not packed.
    void setLayer(int layer, std::vector<Matrix>&& heads);
    // Causal maps only: rows first_query.. of one layer, num_heads x (rows, >= first_query + rows)
    // (each row's keys 0..its query; what AttentionEngine::forwardAppending gives for new tokens).
    void setRows(int layer, int first_query, const std::vector<Matrix>& heads);
    // Causal maps only: rows 0..rows-1 of every layer and head from `earlier`, a run over the same
    // first `rows` tokens (rows <= both lengths).
    void copyRows(const AttentionMaps& earlier, int rows);

    int numLayers() const { return m_layers; }
    int numHeads() const { return m_heads; }
    int seqLen() const { return m_seq_len; }
    bool isCausal() const { return m_causal; }
    // A causal map under a sliding window (Mistral): row `query` sees keys firstKey(query) ..
    // query; the weights before them are 0 like those after (they are stored all the same).
    void setSlidingWindow(int window) { m_sliding_window = window; }
    int slidingWindow() const { return m_sliding_window; }
    int firstKey(int query) const
    {
        return m_causal && m_sliding_window > 0 ? std::max(0, query - m_sliding_window + 1) : 0;
    }

    // Row `query` of a head: its first rowLength(query) weights (keys 0..query when causal, all T
    // keys otherwise); every weight after them is 0.
    const float* row(int layer, int head, int query) const;
    int rowLength(int query) const { return m_causal ? query + 1 : m_seq_len; }
    float at(int layer, int head, int query, int key) const;

    Matrix head(int layer, int head) const;      // (T, T), zeros filled in
    std::vector<Matrix> layer(int layer) const;  // num_heads x (T, T)

private:
    std::int64_t triangle() const { return std::int64_t(m_seq_len) * (m_seq_len + 1) / 2; }
    // Causal: where row `query` of a head starts in m_packed.
    std::int64_t packedRow(int layer, int head, int query) const
    {
        return (std::int64_t(layer) * m_heads + head) * triangle() + std::int64_t(query) * (query + 1) / 2;
    }

    int m_layers = 0;
    int m_heads = 0;
    int m_seq_len = 0;
    bool m_causal = false;
    int m_sliding_window = 0;           // causal maps: 0 = none
    std::unique_ptr<float[]> m_packed;  // causal: (L, H) lower triangles, row after row
    std::vector<Matrix> m_full;         // otherwise: L * H matrices (T, T)
};

}  // namespace attn
