#pragma once

#include <QList>
#include <QRectF>
#include <QString>

class QPainter;

namespace attn {

// Grouped-query attention drawn over a picture of heads: the query heads that share one key/value
// head (groups of H / H_kv consecutive heads, as AttentionTrace::kvHeadOf) bracketed together
// under the label "kv g", and a separator in the gap between neighbouring groups. The Model tab
// and the All-heads grid draw them; nothing is drawn when every head has its own keys.
class KvGroupMarks {
public:
    KvGroupMarks(int num_heads, int num_kv_heads);

    bool isGrouped() const { return m_kv_heads > 0 && m_kv_heads < m_heads && m_heads % m_kv_heads == 0; }
    int groupSize() const { return isGrouped() ? m_heads / m_kv_heads : 1; }
    int groupOf(int head) const { return head / groupSize(); }
    // "3 key/value heads, each shared by 3 query heads", or empty when not grouped.
    QString summary() const;

    static constexpr double kBandHeight = 17;  // the band a bracket and its label take

    // heads: one rectangle per query head (layer-free: one row of a model grid, or a wrapped grid).
    // A bracket spans each run of one group's heads within a row, in the band of kBandHeight whose
    // bottom is `lift` above the run's top; separators span `separator_top`..`separator_bottom`
    // (a row's own top and bottom when those are equal) in the gaps between groups.
    void paint(QPainter& painter, const QList<QRectF>& heads, double lift = 0, double separator_top = 0,
               double separator_bottom = 0) const;

private:
    int m_heads = 0;
    int m_kv_heads = 0;
};

}  // namespace attn
