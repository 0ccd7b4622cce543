#include "core/io/SafetensorsReader.h"

#include <QFile>

#include <new>
#include <vector>

namespace attn {

Result<std::unique_ptr<SafetensorsReader>> SafetensorsReader::open(const QString& path)
{
    auto file = std::make_unique<QFile>(path);
    if (!file->open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot be opened (%1)").arg(file->errorString())};
    return open(std::move(file));
}

Result<std::unique_ptr<SafetensorsReader>> SafetensorsReader::open(std::unique_ptr<QIODevice> device)
{
    const qint64 fileSize = device->size();
    const QByteArray prefix = device->read(SafetensorsHeader::kLengthBytes);
    auto length = SafetensorsHeader::headerLength(prefix, fileSize);
    if (!length)
        return Error{length.error()};
    // At most kMaxHeaderBytes, and no more than the file holds (both checked above).
    const QByteArray json = device->read(*length);
    if (json.size() != *length)
        return Error{QStringLiteral("the header could not be read (%1)").arg(device->errorString())};
    const qint64 dataStart = SafetensorsHeader::kLengthBytes + *length;
    auto header = SafetensorsHeader::parse(json, fileSize - dataStart);
    if (!header)
        return Error{header.error()};
    std::unique_ptr<SafetensorsReader> reader(new SafetensorsReader);
    reader->m_device = std::move(device);
    reader->m_dataStart = dataStart;
    reader->m_dataSize = fileSize - dataStart;
    reader->m_header = std::move(header).value();
    return reader;
}

QStringList SafetensorsReader::tensorNames() const
{
    QStringList names;
    for (const TensorInfo& t : tensors())
        names << t.name;
    return names;
}

Result<Shape> SafetensorsReader::tensorShape(const QString& name)
{
    const TensorInfo* info = find(name);
    if (!info)
        return Error{QStringLiteral("no tensor '%1'").arg(name)};
    if (!info->known_dtype)
        return Error{QStringLiteral("tensor '%1' has unknown dtype '%2'").arg(name, info->dtype)};
    return info->shape;
}

Result<TensorArray> SafetensorsReader::readTensor(const QString& name)
{
    auto shape = tensorShape(name);
    if (!shape)
        return Error{shape.error()};
    const TensorInfo* info = find(name);
    if (!info->format)
        return Error{QStringLiteral("tensor '%1' has dtype %2; attention weights must be F16, BF16, F32 or F64")
                         .arg(name, info->dtype)};
    if (auto problem = tensorSizeProblem(info->shape))
        return Error{QStringLiteral("tensor '%1': %2").arg(name, *problem)};
    auto unreadable = [&] {
        return Error{QStringLiteral("tensor '%1' could not be read (the file changed or %2)")
                         .arg(name, m_device->errorString())};
    };
    const qint64 bytes = info->end - info->begin;  // = elements * dtype size, inside the file: checked in open()
    if (!m_device->seek(m_dataStart + info->begin))
        return unreadable();

    TensorArray array;
    array.shape = info->shape;
    const auto [rows, cols] = TensorArray::matrixDims(info->shape);
    array.values.resize(rows, cols);
    if (bytes == 0)
        return array;
    if (*info->format == FloatFormat::F32 && QSysInfo::ByteOrder == QSysInfo::LittleEndian) {
        if (m_device->read(reinterpret_cast<char*>(array.values.data()), bytes) != bytes)
            return unreadable();
        return array;
    }
    std::vector<char> data(static_cast<size_t>(bytes));
    if (m_device->read(data.data(), bytes) != bytes)
        return unreadable();
    decodeFloats(data.data(), array.values.size(), *info->format, ByteOrder::Little, array.values.data());
    return array;
}

Result<std::optional<int>> SafetensorsReader::declaredNumHeads()
{
    const auto it = metadata().constFind(QStringLiteral("num_heads"));
    if (it == metadata().cend())
        return std::optional<int>{};
    auto heads = parseNumHeads(*it);
    if (!heads)
        return Error{QStringLiteral("__metadata__ %1").arg(heads.error())};
    return std::optional<int>{*heads};
}

QString SafetensorsReader::numHeadsHint() const
{
    return QStringLiteral("no \"num_heads\" in the header's __metadata__");
}

}  // namespace attn
