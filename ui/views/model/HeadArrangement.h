#pragma once

#include <QString>

#include <vector>

namespace attn {

// How the Model tab arranges a run's L x H heads: frames as strong as one score, and each
// layer's heads ordered by another, highest first. Scores are layer after layer (L x H).
class HeadArrangement {
public:
    // Heads marked by a score in [0, 1]; empty: none.
    void setMarks(std::vector<double> scores, const QString& name);
    const std::vector<double>& marks() const { return m_marks; }
    const QString& marksName() const { return m_marks_name; }

    // Each layer's heads drawn in the order of a score; scores of another size: head order.
    void setOrder(const std::vector<double>& scores, const QString& name, int layers, int heads);
    // Back to head order unless the order fits a run of `layers` x `heads`.
    void keepOrderFor(int layers, int heads);
    bool isOrdered() const { return !m_order.empty(); }
    const QString& orderName() const { return m_order_name; }
    int columnOf(int layer, int head, int heads) const;  // where the order puts a head
    int headIn(int layer, int column, int heads) const;  // the head the order puts there

private:
    std::vector<double> m_marks;  // (L x H)
    QString m_marks_name;
    std::vector<int> m_order;  // (L x H): entry layer * H + column is the head drawn there; empty: head order
    QString m_order_name;
};

}  // namespace attn
