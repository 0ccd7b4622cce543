#pragma once

#include "core/base/Result.h"

#include <QRectF>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QPainter;

namespace attn {

struct AttentionResult;
struct ExportRequest;
struct ModelConfig;
struct ModelRun;
class ModelSession;

// What a view's picture is drawn from without a window (--export): one result, or a whole
// model's run. The pointers are only read while the picture is made and drawn.
struct PictureInput {
    const AttentionResult* computed = nullptr;  // the result as computed
    // The result with the hidden keys renormalised away (or `computed`); it outlives the picture.
    std::shared_ptr<const AttentionResult> shown;
    const ModelRun* run = nullptr;
    const ModelConfig* config = nullptr;  // the model of `run`
    const ModelSession* session = nullptr;  // the opened folder of `run`, when there is one (its head, its tokens)
    QStringList labels;                   // the run's tokens as a person reads them
    QString caption;                      // above a picture of a whole model ("gpt2-tiny (gpt2) · 12 tokens")
    bool png = true;                      // a PNG, else a vector page (SVG, PDF)
};

// A view's picture, ready to draw at any size: what `paint` holds lives as long as it does.
struct HeadlessPicture {
    std::function<void(QPainter* painter, const QRectF& target)> paint;
    QString title = QStringLiteral("attention-lab");  // an SVG's or PDF's title
};

// How a view makes its picture from an input and the command line's options; an error names
// the option at fault.
using PictureMaker = Result<HeadlessPicture> (*)(const PictureInput& input, const ExportRequest& request);

}  // namespace attn
