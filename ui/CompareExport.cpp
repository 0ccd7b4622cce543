#include "CompareExport.h"

#include "AttentionResult.h"
#include "LinesCanvas.h"
#include "PictureFile.h"

#include <QPainter>
#include <QStringList>

#include <memory>

namespace attn {
namespace {

// The views paint from shared results; an export borrows the caller's without copying it.
std::shared_ptr<const AttentionResult> borrow(const AttentionResult& result)
{
    return std::shared_ptr<const AttentionResult>(&result, [](const AttentionResult*) {});
}

}  // namespace

Status CompareExport::exportLines(const AttentionResult& result, int head, const QString& path, const QSize& size)
{
    if (head >= result.numHeads() || head < -1)
        return Error{QStringLiteral("--head: head %1 does not exist (the result has %2 heads, numbered from 0)")
                         .arg(head).arg(result.numHeads())};
    LinesCanvas canvas;
    canvas.resize(size);
    canvas.setResult(borrow(result));
    canvas.setHead(head);
    return PictureFile::write(path, size, [&](QPainter& painter, const QRectF& rect) { canvas.paint(painter, rect); });
}

Result<std::pair<int, int>> CompareExport::parseHeadPair(const QString& text, int num_heads)
{
    const QStringList parts = text.split(QLatin1Char(','));
    if (parts.size() != 2)
        return Error{QStringLiteral("--compare: expected two heads as A,B, got \"%1\"").arg(text)};
    int heads[2];
    for (int i = 0; i < 2; ++i) {
        bool ok = false;
        heads[i] = parts[i].trimmed().toInt(&ok);
        if (!ok || heads[i] < 0)
            return Error{QStringLiteral("--compare: \"%1\" is not a head number (0-based)").arg(parts[i])};
        if (heads[i] >= num_heads)
            return Error{QStringLiteral("--compare: head %1 does not exist (the result has %2 heads, numbered from 0)")
                             .arg(heads[i]).arg(num_heads)};
    }
    return std::pair{heads[0], heads[1]};
}

}  // namespace attn
