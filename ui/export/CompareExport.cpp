#include "ui/export/CompareExport.h"

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"
#include "ui/export/ViewExporter.h"
#include "ui/views/compare/CompareFigure.h"
#include "ui/views/lines/LinesCanvas.h"

#include <QPainter>
#include <QStringList>

#include <memory>

namespace attn {
namespace {

// The views paint from shared results; an export borrows the caller's without owning it.
std::shared_ptr<const AttentionResult> borrow(const AttentionResult& result)
{
    return std::shared_ptr<const AttentionResult>(std::shared_ptr<void>(), &result);
}

}  // namespace

Status CompareExport::exportCompare(const AttentionResult& result, int head_a, int head_b, const QString& path,
                                    const QSize& size, double scale, ColorScale color_scale, CellReduction reduction)
{
    return exportCompare(result, head_a, result, head_b, QString(), path, size, scale, color_scale, reduction);
}

Status CompareExport::exportCompare(const AttentionResult& result_a, int head_a, const AttentionResult& result_b,
                                    int head_b, const QString& label_b, const QString& path, const QSize& size,
                                    double scale, ColorScale color_scale, CellReduction reduction)
{
    if (Status ok = ViewExporter::checkPath(path); !ok)
        return ok;
    for (auto [head, result] : {std::pair{head_a, &result_a}, std::pair{head_b, &result_b}})
        if (Status exists = HeadIndex::check(head, result->numHeads()); !exists)
            return Error{QStringLiteral("--compare: %1").arg(exists.error())};
    CompareFigure figure;
    figure.setAttribute(Qt::WA_DontShowOnScreen);
    figure.resize(size);
    figure.setColorScale(color_scale);
    figure.setReduction(reduction);
    if (Status shown = figure.setComparison({borrow(result_a), head_a, QString()}, {borrow(result_b), head_b, label_b});
        !shown)
        return Error{QStringLiteral("--compare: %1").arg(shown.error())};
    return ViewExporter::exportPicture(
        path, size, scale, [&figure](QPainter* painter, const QRectF& target) { figure.paint(painter, target); });
}

Status CompareExport::exportLines(const AttentionResult& result, int head, const QString& path, const QSize& size,
                                  double scale, double top_mass)
{
    if (Status ok = ViewExporter::checkPath(path); !ok)
        return ok;
    if (Status exists = HeadIndex::check(head, result.numHeads()); !exists && head != LinesCanvas::kAllHeads)
        return Error{QStringLiteral("--head: %1").arg(exists.error())};
    LinesCanvas canvas;
    canvas.setAttribute(Qt::WA_DontShowOnScreen);
    canvas.resize(size);
    canvas.setResult(borrow(result));
    canvas.setHead(head);
    canvas.setTopMass(top_mass);
    return ViewExporter::exportPicture(
        path, size, scale, [&canvas](QPainter* painter, const QRectF& target) { canvas.paint(*painter, target); });
}

}  // namespace attn
