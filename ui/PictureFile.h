#pragma once

#include "Result.h"

#include <QRectF>
#include <QSize>
#include <QString>

#include <functional>

class QPainter;

namespace attn {

// Writes one picture to .png, .svg or .pdf (by the extension, case-insensitive), atomically:
// the painting goes to memory first and the file appears only complete, through QSaveFile.
// `paint` draws into the given rectangle (0, 0, size); SVG and PDF keep it as vectors.
// Errors name the file: unknown extension, missing directory, a path through a file, a failed write.
class PictureFile {
public:
    using PaintFunction = std::function<void(QPainter&, const QRectF&)>;

    static Status write(const QString& path, const QSize& size, const PaintFunction& paint);
    static bool isSupported(const QString& path);  // .png, .svg or .pdf
};

}  // namespace attn
