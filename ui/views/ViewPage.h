#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

class QPainter;
class QRectF;

namespace attn {

struct AttentionResult;
struct ModelRun;

// What the window's tabs share, handed to a view when its tab is brought up to date.
struct ViewInput {
    std::shared_ptr<const AttentionResult> computed;  // the result as computed
    std::shared_ptr<const AttentionResult> shown;     // the hidden keys renormalised away (or `computed`)
    std::vector<bool> hidden_keys;                    // per key of the result: hidden in the heatmaps
    int head = 0;                                     // the selected head
    int walk_head = 0;                                // the walkthrough's head and query
    int walk_query = 0;
};

// The one interface of every tab (a QWidget that also derives from this). The window gives a
// view its input through it, and File › Export image and Copy image draw it through it.
class ViewPage {
public:
    virtual ~ViewPage() = default;

    // A new result, or a view that was hidden meanwhile: the view takes what it shows from `input`.
    // A view of a whole model's run takes nothing here (setModelRun).
    virtual void showResult(const ViewInput& input) { (void)input; }
    // A whole model's run (every layer), with the tokens as they are labelled.
    virtual void setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
    {
        (void)run;
        (void)tokens;
    }
    // What the view computes on a worker, finished here and now (an export, a screenshot).
    virtual void computeNow() {}
    // The view's picture drawn into `target` (what an exported file shows).
    virtual void renderPicture(QPainter* painter, const QRectF& target) = 0;
    // The picture's size on screen: what Export image offers first.
    virtual QSize pictureSize() const = 0;
    // A file name to offer, such as "attention-head-2.png".
    virtual QString exportName() const = 0;
};

}  // namespace attn
