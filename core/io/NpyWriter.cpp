#include "core/io/NpyWriter.h"

#include "core/io/AtomicFile.h"

#include <QtEndian>

#include <cstring>

namespace attn {
namespace {

constexpr int kAlignment = 64;            // numpy.lib.format.ARRAY_ALIGN
constexpr int kGrowthAxisMaxDigits = 21;  // numpy.lib.format.GROWTH_AXIS_MAX_DIGITS

}  // namespace

QByteArray NpyWriter::header(const Shape& shape)
{
    QByteArray dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shapeString(shape).toLatin1() + ", }";
    if (!shape.empty())
        dict.append(QByteArray(kGrowthAxisMaxDigits - QByteArray::number(shape[0]).size(), ' '));
    // magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
    const qsizetype unpadded = 10 + dict.size() + 1;
    const qsizetype padding = (kAlignment - unpadded % kAlignment) % kAlignment;
    dict.append(QByteArray(padding, ' '));
    dict.append('\n');

    QByteArray out("\x93NUMPY\x01\x00", 8);
    char length[2];
    qToLittleEndian<quint16>(quint16(dict.size()), length);
    out.append(length, 2);
    out.append(dict);
    return out;
}

void NpyWriter::appendValues(QByteArray& out, const float* values, qsizetype count)
{
    if (count == 0)  // an empty array's values may be null, which memcpy must not see even for 0 bytes
        return;
    const qsizetype start = out.size();
    out.resize(start + count * 4);
    char* target = out.data() + start;
    if (QSysInfo::ByteOrder == QSysInfo::LittleEndian) {
        std::memcpy(target, values, size_t(count) * 4);
        return;
    }
    for (qsizetype i = 0; i < count; ++i)
        qToLittleEndian<float>(values[i], target + 4 * i);
}

Result<QByteArray> NpyWriter::encode(std::span<const float> values, const Shape& shape)
{
    const auto count = elementCount(shape);
    if (!count || *count != std::int64_t(values.size()))
        return Error{QStringLiteral("shape %1 does not describe %2 values").arg(shapeString(shape)).arg(values.size())};
    QByteArray out = header(shape);
    appendValues(out, values.data(), qsizetype(values.size()));
    return out;
}

QByteArray NpyWriter::encode(const Matrix& matrix)
{
    QByteArray out = header({matrix.rows(), matrix.cols()});
    appendValues(out, matrix.data(), matrix.size());
    return out;
}

Result<QByteArray> NpyWriter::encode(const std::vector<Matrix>& stack)
{
    const Eigen::Index rows = stack.empty() ? 0 : stack.front().rows();
    const Eigen::Index cols = stack.empty() ? 0 : stack.front().cols();
    for (size_t i = 0; i < stack.size(); ++i)
        if (stack[i].rows() != rows || stack[i].cols() != cols)
            return Error{QStringLiteral("matrix %1 is %2 x %3 but matrix 0 is %4 x %5")
                             .arg(i)
                             .arg(stack[i].rows())
                             .arg(stack[i].cols())
                             .arg(rows)
                             .arg(cols)};
    QByteArray out = header({std::int64_t(stack.size()), rows, cols});
    for (const Matrix& m : stack)  // each row-major matrix is one contiguous C-order block
        appendValues(out, m.data(), m.size());
    return out;
}

Status NpyWriter::write(QIODevice& device, const QByteArray& npy)
{
    if (device.write(npy) != npy.size())
        return Error{QStringLiteral("could not write the .npy data (%1)").arg(device.errorString())};
    return {};
}

Status NpyWriter::writeFile(const QString& path, const QByteArray& npy)
{
    return AtomicFile::write(path, npy);
}

}  // namespace attn
