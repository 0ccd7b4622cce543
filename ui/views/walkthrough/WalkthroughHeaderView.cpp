#include "ui/views/walkthrough/WalkthroughHeaderView.h"

#include "ui/views/walkthrough/WalkthroughItemModel.h"

namespace attn {

QSize WalkthroughHeaderView::sizeHint() const
{
    if (!model() || count() == 0)
        return QHeaderView::sizeHint();
    bool named = false;
    const int widest = model()->headerData(0, orientation(), WalkthroughItemModel::WidestSectionRole).toInt(&named);
    if (!named || widest < 0 || widest >= count())
        return QHeaderView::sizeHint();
    return sectionSizeFromContents(widest);
}

}  // namespace attn
