#include "ui/export/CompareExport.h"

#include "ui/export/ViewExporter.h"
#include "ui/views/compare/ComparePicture.h"
#include "ui/views/lines/LinesPicture.h"

namespace attn {

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
    auto picture = ComparePicture::make(result_a, head_a, result_b, head_b, label_b, size, color_scale, reduction);
    if (!picture)
        return Error{picture.error()};
    return ViewExporter::exportPicture(path, size, scale, picture->paint);
}

Status CompareExport::exportLines(const AttentionResult& result, int head, const QString& path, const QSize& size,
                                  double scale, double top_mass)
{
    if (Status ok = ViewExporter::checkPath(path); !ok)
        return ok;
    auto picture = LinesPicture::make(result, head, size, top_mass);
    if (!picture)
        return Error{picture.error()};
    return ViewExporter::exportPicture(path, size, scale, picture->paint);
}

}  // namespace attn
