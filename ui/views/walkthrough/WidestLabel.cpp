#include "ui/views/walkthrough/WidestLabel.h"

namespace attn {

WidestLabel::WidestLabel(const QFont& font) : m_metrics(font)
{
}

int WidestLabel::in(const QStringList& labels)
{
    for (const auto& [measured, widest] : m_measured)
        if (measured == labels)  // shared copies compare at once; equal lists (queries and keys) in one pass
            return widest;
    int widest = -1;
    qreal widest_width = -1;
    for (int i = 0; i < labels.size(); ++i) {
        const qreal width = m_metrics.horizontalAdvance(labels[i]);
        if (width > widest_width) {
            widest_width = width;
            widest = i;
        }
    }
    m_measured.emplace_back(labels, widest);
    return widest;
}

}  // namespace attn
