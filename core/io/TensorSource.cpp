#include "core/io/TensorSource.h"

#include <QStringList>

#include <limits>

namespace attn {

std::optional<std::int64_t> elementCount(const Shape& shape)
{
    std::int64_t count = 1;
    for (std::int64_t dim : shape) {
        if (dim < 0)
            return std::nullopt;
        if (dim != 0 && count > std::numeric_limits<std::int64_t>::max() / dim)
            return std::nullopt;
        count *= dim;
    }
    return count;
}

std::optional<QString> tensorSizeProblem(const Shape& shape)
{
    const auto count = elementCount(shape);
    if (count && *count <= TensorSource::kMaxTensorElements)
        return std::nullopt;
    return QStringLiteral("shape %1 has %2 elements, over the limit of %3 for one array (4 GiB of float32)")
        .arg(shapeString(shape), count ? QString::number(*count) : QStringLiteral("more than 2^63"))
        .arg(TensorSource::kMaxTensorElements);
}

QString shapeString(const Shape& shape)
{
    QStringList parts;
    for (std::int64_t dim : shape)
        parts << QString::number(dim);
    if (shape.size() == 1)
        return QStringLiteral("(%1,)").arg(parts.front());
    return QStringLiteral("(%1)").arg(parts.join(QStringLiteral(", ")));
}

QString singleLine(const QString& message)
{
    QString line;
    line.reserve(message.size());
    for (QChar c : message) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            line += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            line += c;
    }
    return line;
}

Result<int> checkNumHeads(std::int64_t value)
{
    if (value < 1 || value > 65536)
        return Error{QStringLiteral("num_heads %1 is not a positive integer of at most 65536").arg(value)};
    return int(value);
}

Result<int> parseNumHeads(const QString& text)
{
    bool ok = false;
    const qlonglong value = text.trimmed().toLongLong(&ok);
    if (!ok)
        return Error{QStringLiteral("num_heads '%1' is not a positive integer").arg(text)};
    return checkNumHeads(value);
}

std::pair<Eigen::Index, Eigen::Index> TensorArray::matrixDims(const Shape& shape)
{
    if (shape.empty())
        return {1, 1};
    if (shape.size() == 1)
        return {1, shape[0]};
    // The product of the trailing dimensions can only overflow when a dimension is 0, and then
    // there is nothing to store.
    const auto rest = elementCount(Shape(shape.begin() + 1, shape.end()));
    return {shape[0], rest ? *rest : 0};
}

}  // namespace attn
