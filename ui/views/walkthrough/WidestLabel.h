#pragma once

#include <QFontMetricsF>
#include <QStringList>

#include <utility>
#include <vector>

class QFont;

namespace attn {

// Which label of a list is the widest in one font: the one label a table header or the score
// breakdown then measures for its width, instead of every label on the GUI thread. Each list is
// measured once (a long input's tables share lists of thousands of token labels). Font metrics
// work on any thread, so a worker can find them with the tables it builds.
class WidestLabel {
public:
    explicit WidestLabel(const QFont& font);

    int in(const QStringList& labels);  // its index; -1 for an empty list

private:
    QFontMetricsF m_metrics;
    std::vector<std::pair<QStringList, int>> m_measured;  // each list with its widest label
};

}  // namespace attn
