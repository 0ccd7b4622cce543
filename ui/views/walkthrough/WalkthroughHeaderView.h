#pragma once

#include <QHeaderView>

namespace attn {

// A walkthrough table's header, as wide (rows) or as tall (columns) as the label its model names
// the widest (WalkthroughItemModel::WidestSectionRole). QHeaderView measures the labels of the
// first and last 100 sections instead whenever the table changes: thousands of text layouts on
// the GUI thread for a long input's tables. Without a name from the model it measures as Qt does.
class WalkthroughHeaderView : public QHeaderView {
public:
    using QHeaderView::QHeaderView;

    QSize sizeHint() const override;
};

}  // namespace attn
