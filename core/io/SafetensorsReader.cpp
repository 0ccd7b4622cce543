#include "core/io/SafetensorsReader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtEndian>

#include <algorithm>
#include <limits>

namespace attn {
namespace {

struct DtypeInfo {
    const char* name;
    int bits;
    std::optional<FloatFormat> format;
};

// Every dtype of the format; only the four float formats are weights.
constexpr DtypeInfo kDtypes[] = {
    {"F16", 16, FloatFormat::F16},
    {"BF16", 16, FloatFormat::BF16},
    {"F32", 32, FloatFormat::F32},
    {"F64", 64, FloatFormat::F64},
    {"BOOL", 8, {}},
    {"U8", 8, {}},
    {"I8", 8, {}},
    {"I16", 16, {}},
    {"U16", 16, {}},
    {"I32", 32, {}},
    {"U32", 32, {}},
    {"I64", 64, {}},
    {"U64", 64, {}},
    {"C64", 64, {}},
    {"F8_E5M2", 8, {}},
    {"F8_E4M3", 8, {}},
    {"F8_E8M0", 8, {}},
    {"F6_E2M3", 6, {}},
    {"F6_E3M2", 6, {}},
    {"F4", 4, {}},
};

const DtypeInfo* findDtype(const QString& name)
{
    for (const DtypeInfo& d : kDtypes)
        if (name == QLatin1String(d.name))
            return &d;
    return nullptr;
}

// A JSON number that is an integer in [0, 2^63); -1 otherwise.
qint64 nonNegativeInteger(const QJsonValue& v)
{
    if (!v.isDouble())
        return -1;
    const qint64 i = v.toInteger(-1);
    if (i < 0 || double(i) != v.toDouble())
        return -1;
    return i;
}

QString jsonText(const QJsonValue& v)
{
    if (v.isString())
        return QLatin1Char('"') + v.toString() + QLatin1Char('"');
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 17);
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    if (v.isObject())
        return QStringLiteral("an object");
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return QStringLiteral("null");
}

Result<SafetensorsReader::TensorInfo> parseEntry(const QString& name, const QJsonValue& value, qint64 data_size)
{
    auto fail = [&](const QString& reason) { return Error{QStringLiteral("tensor '%1': %2").arg(name, reason)}; };
    if (!value.isObject())
        return fail(QStringLiteral("its header entry is not an object"));
    const QJsonObject entry = value.toObject();
    SafetensorsReader::TensorInfo info;
    info.name = name;

    const QJsonValue dtype = entry.value(QLatin1String("dtype"));
    if (!dtype.isString())
        return fail(QStringLiteral("'dtype' is missing or not a string"));
    info.dtype = dtype.toString();
    const DtypeInfo* type = findDtype(info.dtype);
    if (!type)
        return fail(QStringLiteral("unknown dtype '%1'").arg(info.dtype));
    info.format = type->format;

    const QJsonValue shape = entry.value(QLatin1String("shape"));
    if (!shape.isArray())
        return fail(QStringLiteral("'shape' is missing or not an array"));
    for (const QJsonValue& dim : shape.toArray()) {
        const qint64 d = nonNegativeInteger(dim);
        if (d < 0)
            return fail(QStringLiteral("shape entry %1 is not a non-negative integer").arg(jsonText(dim)));
        info.shape.push_back(d);
    }

    const QJsonValue offsets = entry.value(QLatin1String("data_offsets"));
    const QJsonArray range = offsets.toArray();
    if (!offsets.isArray() || range.size() != 2)
        return fail(QStringLiteral("'data_offsets' is missing or not [begin, end]"));
    info.begin = nonNegativeInteger(range[0]);
    info.end = nonNegativeInteger(range[1]);
    if (info.begin < 0 || info.end < 0)
        return fail(QStringLiteral("data_offsets %1 are not non-negative integers").arg(jsonText(offsets)));
    if (info.end < info.begin)
        return fail(QStringLiteral("data_offsets [%1, %2] end before they begin").arg(info.begin).arg(info.end));

    const auto count = elementCount(info.shape);
    if (!count || *count > std::numeric_limits<std::int64_t>::max() / type->bits)
        return fail(QStringLiteral("shape %1 has too many elements (the byte count overflows 64 bits)")
                        .arg(shapeString(info.shape)));
    const std::int64_t bits = *count * type->bits;
    if (bits % 8 != 0)
        return fail(QStringLiteral("shape %1 of %2 does not fill a whole number of bytes")
                        .arg(shapeString(info.shape), info.dtype));
    if (bits / 8 != info.end - info.begin)
        return fail(QStringLiteral("shape %1 of %2 claims %3 bytes but its data range [%4, %5] holds %6")
                        .arg(shapeString(info.shape), info.dtype)
                        .arg(bits / 8)
                        .arg(info.begin)
                        .arg(info.end)
                        .arg(info.end - info.begin));
    if (info.end > data_size)
        return fail(QStringLiteral("data_offsets [%1, %2] lie outside the data section of %3 bytes")
                        .arg(info.begin)
                        .arg(info.end)
                        .arg(data_size));
    return info;
}

}  // namespace

Result<std::unique_ptr<SafetensorsReader>> SafetensorsReader::open(const QString& path)
{
    std::unique_ptr<SafetensorsReader> reader(new SafetensorsReader);
    reader->m_file.setFileName(path);
    if (!reader->m_file.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot be opened (%1)").arg(reader->m_file.errorString())};
    const qint64 fileSize = reader->m_file.size();
    char lengthBytes[8];
    if (fileSize < 8 || reader->m_file.read(lengthBytes, 8) != 8)
        return Error{
            QStringLiteral("not a safetensors file: %1 bytes, shorter than the 8-byte header length").arg(fileSize)};
    const quint64 headerSize = qFromLittleEndian<quint64>(lengthBytes);
    if (headerSize > quint64(kMaxHeaderBytes))
        return Error{QStringLiteral("the header length claims %1 bytes, over the format's limit of %2")
                         .arg(headerSize)
                         .arg(kMaxHeaderBytes)};
    if (qint64(headerSize) > fileSize - 8)
        return Error{QStringLiteral("the header length claims %1 bytes but only %2 follow it")
                         .arg(headerSize)
                         .arg(fileSize - 8)};
    if (headerSize < 2)
        return Error{QStringLiteral("the header is %1 bytes long; it must be a JSON object").arg(headerSize)};

    const QByteArray json = reader->m_file.read(qint64(headerSize));
    if (json.size() != qint64(headerSize))
        return Error{QStringLiteral("the header could not be read (%1)").arg(reader->m_file.errorString())};
    reader->m_dataStart = 8 + qint64(headerSize);
    reader->m_dataSize = fileSize - reader->m_dataStart;
    if (Status status = reader->parseHeader(json, fileSize - reader->m_dataStart); !status)
        return Error{status.error()};
    return reader;
}

Status SafetensorsReader::parseHeader(const QByteArray& json, qint64 data_size)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Error{QStringLiteral("the header is not valid JSON (%1 at byte %2)")
                         .arg(parseError.errorString())
                         .arg(parseError.offset)};
    if (!doc.isObject())
        return Error{QStringLiteral("the header is JSON but not an object")};
    const QJsonObject header = doc.object();

    for (auto it = header.begin(); it != header.end(); ++it) {
        if (it.key() == u"__metadata__") {
            if (!it.value().isObject())
                return Error{QStringLiteral("__metadata__ is not an object")};
            const QJsonObject metadata = it.value().toObject();
            for (auto m = metadata.begin(); m != metadata.end(); ++m) {
                if (!m.value().isString())
                    return Error{QStringLiteral(
                                     "__metadata__ value '%1' is %2, not a string (the format maps strings to strings)")
                                     .arg(m.key(), jsonText(m.value()))};
                m_metadata.insert(m.key(), m.value().toString());
            }
            continue;
        }
        auto info = parseEntry(it.key(), it.value(), data_size);
        if (!info)
            return Error{info.error()};
        m_tensors.push_back(std::move(info).value());
    }

    // The tensors must tile the data section: sorted by offset, each begins where the last ended.
    std::stable_sort(m_tensors.begin(), m_tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    qint64 covered = 0;
    const TensorInfo* previous = nullptr;
    for (const TensorInfo& t : m_tensors) {
        if (t.begin < covered)
            return Error{QStringLiteral("tensors '%1' [%2, %3] and '%4' [%5, %6] overlap in the data section")
                             .arg(previous->name)
                             .arg(previous->begin)
                             .arg(previous->end)
                             .arg(t.name)
                             .arg(t.begin)
                             .arg(t.end)};
        if (t.begin > covered)
            return Error{
                QStringLiteral(
                    "bytes [%1, %2] of the data section belong to no tensor (a hole; tensors must be contiguous)")
                    .arg(covered)
                    .arg(t.begin)};
        covered = t.end;
        previous = &t;
    }
    if (covered != data_size)
        return Error{
            QStringLiteral("bytes [%1, %2] at the end of the data section belong to no tensor (tensors must cover it)")
                .arg(covered)
                .arg(data_size)};
    return {};
}

const SafetensorsReader::TensorInfo* SafetensorsReader::find(const QString& name) const
{
    for (const TensorInfo& t : m_tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

QStringList SafetensorsReader::tensorNames() const
{
    QStringList names;
    for (const TensorInfo& t : m_tensors)
        names << t.name;
    return names;
}

Result<TensorArray> SafetensorsReader::readTensor(const QString& name)
{
    const TensorInfo* info = find(name);
    if (!info)
        return Error{QStringLiteral("no tensor '%1'").arg(name)};
    if (!info->format)
        return Error{QStringLiteral("tensor '%1' has dtype %2; attention weights must be F16, BF16, F32 or F64")
                         .arg(name, info->dtype)};
    const qint64 bytes = info->end - info->begin;  // checked against the file in open()
    const QByteArray data = m_file.seek(m_dataStart + info->begin) ? m_file.read(bytes) : QByteArray();
    if (data.size() != bytes)
        return Error{
            QStringLiteral("tensor '%1' could not be read (the file changed or %2)").arg(name, m_file.errorString())};
    TensorArray array;
    array.shape = info->shape;
    const auto [rows, cols] = TensorArray::matrixDims(info->shape);
    array.values.resize(rows, cols);
    decodeFloats(data.constData(), array.values.size(), *info->format, ByteOrder::Little, array.values.data());
    return array;
}

Result<std::optional<int>> SafetensorsReader::declaredNumHeads()
{
    const auto it = m_metadata.constFind(QStringLiteral("num_heads"));
    if (it == m_metadata.cend())
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
