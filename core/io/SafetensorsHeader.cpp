#include "core/io/SafetensorsHeader.h"

#include "core/io/JsonCursor.h"

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

// The text of the value at the cursor, which is skipped.
Result<QString> rawValue(JsonCursor& cursor, QByteArrayView json)
{
    cursor.peek();
    const qsizetype start = cursor.offset();
    if (Status s = cursor.skipValue(); !s)
        return Error{s.error()};
    return QString::fromUtf8(json.sliced(start, cursor.offset() - start));
}

// A shape entry or an offset: the reference reads them as unsigned integers, so a fraction, an
// exponent, a sign or a string is not one. `value` is empty when the text is not such an integer.
struct Count {
    std::optional<qint64> value;
    QString text;  // as written
    bool too_large = false;
};

Result<Count> readCount(JsonCursor& cursor, QByteArrayView json)
{
    const char c = cursor.peek();
    if (c != '-' && (c < '0' || c > '9')) {
        auto raw = rawValue(cursor, json);
        if (!raw)
            return Error{raw.error()};
        return Count{{}, std::move(raw).value()};
    }
    auto number = cursor.number();
    if (!number)
        return Error{number.error()};
    Count count{{}, QString::fromLatin1(number->text)};
    if (!number->integer_syntax || number->text.startsWith('-'))
        return count;
    qint64 value = 0;
    for (char digit : number->text) {
        if (value > (std::numeric_limits<qint64>::max() - (digit - '0')) / 10) {
            count.too_large = true;
            return count;
        }
        value = value * 10 + (digit - '0');
    }
    count.value = value;
    return count;
}

QString countProblem(const Count& count)
{
    return count.too_large ? QStringLiteral("is too large (2^63 or more)")
                           : QStringLiteral("is not a non-negative integer");
}

// An array of counts ("shape", "data_offsets") as written: its entries and its text. Empty when
// the value is not an array (it is skipped; the caller says what was expected).
struct CountArray {
    std::vector<Count> counts;
    QString text;
};

Result<std::optional<CountArray>> readCountArray(JsonCursor& cursor, QByteArrayView json)
{
    cursor.peek();  // past white space: the text starts at the value
    const qsizetype start = cursor.offset();
    if (cursor.peek() != '[') {
        if (Status s = cursor.skipValue(); !s)
            return Error{s.error()};
        return std::optional<CountArray>();
    }
    if (Status s = cursor.beginArray(); !s)
        return Error{s.error()};
    CountArray array;
    for (;;) {
        auto more = cursor.nextElement();
        if (!more)
            return Error{more.error()};
        if (!*more)
            break;
        auto count = readCount(cursor, json);
        if (!count)
            return Error{count.error()};
        array.counts.push_back(std::move(count).value());
    }
    array.text = QString::fromUtf8(json.sliced(start, cursor.offset() - start));
    return std::optional<CountArray>(std::move(array));
}

Result<SafetensorsTensorInfo> parseEntry(JsonCursor& cursor, QByteArrayView json, const QString& name, qint64 data_size)
{
    auto fail = [&](const QString& reason) { return Error{QStringLiteral("tensor '%1': %2").arg(name, reason)}; };
    if (cursor.peek() != '{') {
        if (auto raw = rawValue(cursor, json); !raw)
            return Error{raw.error()};
        return fail(QStringLiteral("its header entry is not an object"));
    }
    if (Status s = cursor.beginObject(); !s)
        return Error{s.error()};

    SafetensorsTensorInfo info;
    info.name = name;
    bool haveDtype = false, haveShape = false, haveOffsets = false;
    bool dtypeIsString = false, shapeIsArray = false, offsetsArePair = false;
    std::optional<Count> badShapeEntry;
    std::vector<Count> offsets;
    QString offsetsText;
    for (;;) {
        auto key = cursor.nextKey();
        if (!key)
            return Error{key.error()};
        if (!key->has_value())
            break;
        const QString& field = **key;
        bool* seen = field == u"dtype"          ? &haveDtype
                     : field == u"shape"        ? &haveShape
                     : field == u"data_offsets" ? &haveOffsets
                                                : nullptr;
        if (!seen) {  // other fields are ignored, as the reference ignores them
            if (Status s = cursor.skipValue(); !s)
                return Error{s.error()};
            continue;
        }
        if (*seen)
            return fail(QStringLiteral("'%1' appears twice in its header entry").arg(field));
        *seen = true;
        if (seen == &haveDtype) {
            if (cursor.peek() == '"') {
                auto dtype = cursor.string();
                if (!dtype)
                    return Error{dtype.error()};
                info.dtype = std::move(dtype).value();
                dtypeIsString = true;
            } else if (Status s = cursor.skipValue(); !s) {
                return Error{s.error()};
            }
        } else {
            auto array = readCountArray(cursor, json);
            if (!array)
                return Error{array.error()};
            if (!array->has_value())
                continue;
            if (seen == &haveShape) {
                shapeIsArray = true;
                for (const Count& dim : array.value()->counts) {
                    if (!dim.value && !badShapeEntry)
                        badShapeEntry = dim;
                    if (dim.value)
                        info.shape.push_back(*dim.value);
                }
            } else {
                offsets = std::move(array.value()->counts);
                offsetsArePair = offsets.size() == 2;
                offsetsText = std::move(array.value()->text);
            }
        }
    }

    if (!dtypeIsString)
        return fail(QStringLiteral("'dtype' is missing or not a string"));
    const DtypeInfo* type = findDtype(info.dtype);
    info.known_dtype = type != nullptr;
    info.format = type ? type->format : std::nullopt;
    if (!shapeIsArray)
        return fail(QStringLiteral("'shape' is missing or not an array"));
    if (badShapeEntry)
        return fail(QStringLiteral("shape entry %1 %2").arg(badShapeEntry->text, countProblem(*badShapeEntry)));
    if (!offsetsArePair)
        return fail(QStringLiteral("'data_offsets' is missing or not [begin, end]"));
    if (!offsets[0].value || !offsets[1].value)
        return fail(QStringLiteral("data_offsets %1 are not non-negative integers below 2^63").arg(offsetsText));
    info.begin = *offsets[0].value;
    info.end = *offsets[1].value;
    if (info.end < info.begin)
        return fail(QStringLiteral("data_offsets [%1, %2] end before they begin").arg(info.begin).arg(info.end));

    if (type) {
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
    }
    if (info.end > data_size)
        return fail(QStringLiteral("data_offsets [%1, %2] lie outside the data section of %3 bytes")
                        .arg(info.begin)
                        .arg(info.end)
                        .arg(data_size));
    return info;
}

Result<QMap<QString, QString>> parseMetadata(JsonCursor& cursor, QByteArrayView json)
{
    QMap<QString, QString> metadata;
    if (cursor.peek() != '{') {
        auto raw = rawValue(cursor, json);
        if (!raw)
            return Error{raw.error()};
        if (*raw == u"null")  // the reference reads it as an optional map
            return metadata;
        return Error{QStringLiteral("__metadata__ is not an object")};
    }
    if (Status s = cursor.beginObject(); !s)
        return Error{s.error()};
    for (;;) {
        auto key = cursor.nextKey();
        if (!key)
            return Error{key.error()};
        if (!key->has_value())
            return metadata;
        const QString& name = **key;
        if (metadata.contains(name))
            return Error{QStringLiteral("__metadata__ key '%1' appears twice").arg(name)};
        if (cursor.peek() != '"') {
            auto raw = rawValue(cursor, json);
            if (!raw)
                return Error{raw.error()};
            return Error{
                QStringLiteral("__metadata__ value '%1' is %2, not a string (the format maps strings to strings)")
                    .arg(name, *raw)};
        }
        auto value = cursor.string();
        if (!value)
            return Error{value.error()};
        metadata.insert(name, std::move(value).value());
    }
}

}  // namespace

Result<qint64> SafetensorsHeader::headerLength(QByteArrayView prefix, qint64 file_size)
{
    if (file_size < kLengthBytes || prefix.size() < kLengthBytes)
        return Error{
            QStringLiteral("not a safetensors file: %1 bytes, shorter than the 8-byte header length").arg(file_size)};
    const quint64 length = qFromLittleEndian<quint64>(prefix.data());
    if (length > quint64(kMaxHeaderBytes))
        return Error{QStringLiteral("the header length claims %1 bytes, over the format's limit of %2")
                         .arg(length)
                         .arg(kMaxHeaderBytes)};
    if (qint64(length) > file_size - kLengthBytes)
        return Error{QStringLiteral("the header length claims %1 bytes but only %2 follow it")
                         .arg(length)
                         .arg(file_size - kLengthBytes)};
    if (length < 2)
        return Error{QStringLiteral("the header is %1 bytes long; it must be a JSON object").arg(length)};
    return qint64(length);
}

Result<SafetensorsHeader> SafetensorsHeader::parse(QByteArrayView json, qint64 data_size)
{
    if (json.startsWith("\xEF\xBB\xBF"))
        return Error{QStringLiteral("the header starts with a UTF-8 byte order mark, which the format does not allow")};
    JsonCursor cursor(json, QStringLiteral("the header is not valid JSON"));
    const char first = cursor.peek();
    if (first == '[') {
        if (Status s = cursor.skipValue(); !s)
            return Error{s.error()};
        return Error{QStringLiteral("the header is JSON but not an object")};
    }
    if (first != '{')
        return cursor.syntaxError(QStringLiteral("a JSON object expected"));
    if (Status s = cursor.beginObject(); !s)
        return Error{s.error()};

    SafetensorsHeader header;
    bool haveMetadata = false;
    for (;;) {
        auto key = cursor.nextKey();
        if (!key)
            return Error{key.error()};
        if (!key->has_value())
            break;
        const QString& name = **key;
        if (name == u"__metadata__") {
            if (haveMetadata)
                return Error{QStringLiteral("__metadata__ appears twice in the header")};
            haveMetadata = true;
            auto metadata = parseMetadata(cursor, json);
            if (!metadata)
                return Error{metadata.error()};
            header.m_metadata = std::move(metadata).value();
            continue;
        }
        if (header.m_index.contains(name))
            return Error{QStringLiteral("tensor '%1' appears twice in the header").arg(name)};
        auto info = parseEntry(cursor, json, name, data_size);
        if (!info)
            return Error{info.error()};
        header.m_index.insert(name, qsizetype(header.m_tensors.size()));
        header.m_tensors.push_back(std::move(info).value());
    }
    if (Status s = cursor.finish(); !s)
        return Error{s.error()};

    // The tensors must tile the data section: sorted by offset, each begins where the last ended.
    std::stable_sort(header.m_tensors.begin(), header.m_tensors.end(),
                     [](const SafetensorsTensorInfo& a, const SafetensorsTensorInfo& b) {
                         return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
                     });
    qint64 covered = 0;
    const SafetensorsTensorInfo* previous = nullptr;
    for (const SafetensorsTensorInfo& t : header.m_tensors) {
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
    for (qsizetype i = 0; i < qsizetype(header.m_tensors.size()); ++i)
        header.m_index[header.m_tensors[size_t(i)].name] = i;
    return header;
}

const SafetensorsTensorInfo* SafetensorsHeader::find(const QString& name) const
{
    const auto it = m_index.constFind(name);
    return it == m_index.cend() ? nullptr : &m_tensors[size_t(*it)];
}

}  // namespace attn
