// How ModelGridPainter arranges the heads and what it leaves out: frames and order by a score,
// the aggregate thumbnails, the hidden keys.
#include "ui/views/model/ModelGridPainter.h"

#include "core/analysis/AttentionDisplay.h"

#include <QCoreApplication>

#include <algorithm>
#include <numeric>

namespace attn {

void ModelGridPainter::setHeadMarks(std::vector<double> scores, const QString& name)
{
    m_marks = std::move(scores);
    m_marks_name = name;
}

void ModelGridPainter::setHeadOrder(const std::vector<double>& scores, const QString& name)
{
    const int heads = numHeads();
    m_order.clear();
    m_order_name = name;
    if (heads == 0 || scores.size() != size_t(numLayers() * heads))
        return;
    m_order.resize(scores.size());
    for (int layer = 0; layer < numLayers(); ++layer) {
        const auto row = m_order.begin() + layer * heads;
        std::iota(row, row + heads, 0);
        // Highest score first; equal scores keep head order (the same picture every time).
        std::stable_sort(row, row + heads, [&](int a, int b) {
            return scores[size_t(layer * heads + a)] > scores[size_t(layer * heads + b)];
        });
    }
}

int ModelGridPainter::columnOf(int layer, int head) const
{
    if (m_order.empty())
        return head;
    const auto row = m_order.begin() + layer * numHeads();
    return int(std::find(row, row + numHeads(), head) - row);
}

int ModelGridPainter::headIn(int layer, int column) const
{
    return m_order.empty() ? column : m_order[size_t(layer * numHeads() + column)];
}

void ModelGridPainter::setAggregate(std::optional<HeadFusion> fusion)
{
    m_aggregate = fusion;
}

void ModelGridPainter::setHiddenKeys(const QList<int>& positions)
{
    m_hidden_positions = positions;
    updateHidden();
}

void ModelGridPainter::updateHidden()
{
    const std::vector<bool> flags = AttentionDisplay::shownHiddenKeys(m_hidden_positions, m_run ? m_run->seqLen() : 0);
    std::vector<int> hidden;  // the positions flagged, in order
    for (size_t key = 0; key < flags.size(); ++key)
        if (flags[key])
            hidden.push_back(int(key));
    if (hidden != m_hidden) {
        m_hidden = std::move(hidden);
        m_cache.clear();
    }
}

QString ModelGridPainter::aggregateAt(const QPointF& point, const QSizeF& size) const
{
    if (!m_aggregate)
        return {};
    const Layout layout = layoutFor(size);
    const QString fusion = headFusionKey(*m_aggregate);
    for (int layer = 0; layer < layout.layer_aggregates.size(); ++layer)
        if (layout.layer_aggregates[layer].contains(point))
            return QCoreApplication::translate("ModelGridPainter", "the %1 of layer %2's heads").arg(fusion).arg(layer);
    for (int head = 0; head < layout.head_aggregates.size(); ++head)
        if (layout.head_aggregates[head].contains(point))
            return QCoreApplication::translate("ModelGridPainter", "the %1 of head %2 over every layer")
                .arg(fusion)
                .arg(head);
    if (layout.all_aggregate.contains(point))
        return QCoreApplication::translate("ModelGridPainter", "the %1 of every head of every layer").arg(fusion);
    return {};
}

}  // namespace attn
