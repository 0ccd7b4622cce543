#include "ui/views/model/HeadArrangement.h"

#include <algorithm>
#include <numeric>

namespace attn {

void HeadArrangement::setMarks(std::vector<double> scores, const QString& name)
{
    m_marks = std::move(scores);
    m_marks_name = name;
}

void HeadArrangement::setOrder(const std::vector<double>& scores, const QString& name, int layers, int heads)
{
    m_order.clear();
    m_order_name = name;
    if (heads == 0 || scores.size() != size_t(layers * heads))
        return;
    m_order.resize(scores.size());
    for (int layer = 0; layer < layers; ++layer) {
        const auto row = m_order.begin() + layer * heads;
        std::iota(row, row + heads, 0);
        // Highest score first; equal scores keep head order (the same picture every time).
        std::stable_sort(row, row + heads, [&](int a, int b) {
            return scores[size_t(layer * heads + a)] > scores[size_t(layer * heads + b)];
        });
    }
}

void HeadArrangement::keepOrderFor(int layers, int heads)
{
    if (m_order.size() != size_t(layers * heads))
        m_order.clear();
}

int HeadArrangement::columnOf(int layer, int head, int heads) const
{
    if (m_order.empty())
        return head;
    const auto row = m_order.begin() + layer * heads;
    return int(std::find(row, row + heads, head) - row);
}

int HeadArrangement::headIn(int layer, int column, int heads) const
{
    return m_order.empty() ? column : m_order[size_t(layer * heads + column)];
}

}  // namespace attn
