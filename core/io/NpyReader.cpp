#include "core/io/NpyReader.h"

#include "core/io/FloatConversion.h"

#include <QFile>
#include <QFileInfo>
#include <QtEndian>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <new>
#include <optional>

namespace attn {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr int kMagicSize = 6;
constexpr size_t kMaxDimensions = 64;
// Magic, version, a 4-byte length (versions 2 and 3) and the longest header accepted.
constexpr qint64 kLongestPrefix = kMagicSize + 2 + 4 + NpyReader::kMaxHeaderBytes;

// A cursor over the header's Python dict literal: {'descr': '<f4', 'fortran_order': False,
// 'shape': (3, 4), }. Only the literals numpy writes are understood.
class DictLexer {
public:
    explicit DictLexer(QByteArrayView text) : m_text(text) {}

    void skipSpace()
    {
        while (m_pos < m_text.size() &&
               (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    bool atEnd()
    {
        skipSpace();
        return m_pos >= m_text.size();
    }
    char peek()
    {
        skipSpace();
        return m_pos < m_text.size() ? m_text[m_pos] : '\0';
    }
    bool accept(char c)
    {
        if (peek() != c)
            return false;
        ++m_pos;
        return true;
    }

    std::optional<QString> string()
    {
        const char quote = peek();
        if (quote != '\'' && quote != '"')
            return std::nullopt;
        const qsizetype start = ++m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] != quote) {
            if (m_text[m_pos] == '\\')
                return std::nullopt;  // numpy never escapes inside its keys or dtype strings
            ++m_pos;
        }
        if (m_pos >= m_text.size())
            return std::nullopt;
        const QString value = QString::fromUtf8(m_text.sliced(start, m_pos - start));
        ++m_pos;
        return value;
    }

    QByteArrayView word()
    {
        skipSpace();
        const qsizetype start = m_pos;
        while (m_pos < m_text.size() &&
               (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
            ++m_pos;
        return m_text.sliced(start, m_pos - start);
    }

private:
    QByteArrayView m_text;
    qsizetype m_pos = 0;
};

Result<std::int64_t> parseDimension(QByteArrayView word)
{
    if (word.endsWith('L'))  // Python 2 long literals in old files
        word.chop(1);
    const QString text = QString::fromLatin1(word);
    if (word.isEmpty())
        return Error{QStringLiteral("shape entry is not a non-negative integer")};
    std::int64_t value = 0;
    for (char c : word) {
        if (c < '0' || c > '9')
            return Error{QStringLiteral("shape entry '%1' is not a non-negative integer").arg(text)};
        const int digit = c - '0';
        if (value > (std::numeric_limits<std::int64_t>::max() - digit) / 10)
            return Error{QStringLiteral("shape entry '%1' does not fit in 64 bits").arg(text)};
        value = value * 10 + digit;
    }
    return value;
}

Result<Shape> parseShape(DictLexer& lexer)
{
    if (!lexer.accept('('))
        return Error{QStringLiteral("the header's 'shape' is not a tuple")};
    Shape shape;
    while (!lexer.accept(')')) {
        if (lexer.peek() == '-')
            return Error{QStringLiteral("the header's shape has a negative dimension")};
        auto dim = parseDimension(lexer.word());
        if (!dim)
            return Error{QStringLiteral("the header's %1").arg(dim.error())};
        shape.push_back(*dim);
        if (shape.size() > kMaxDimensions)
            return Error{QStringLiteral("the header's shape has more than %1 dimensions").arg(kMaxDimensions)};
        if (!lexer.accept(',') && lexer.peek() != ')')
            return Error{QStringLiteral("the header's 'shape' is not a tuple of integers")};
    }
    return shape;
}

Status parseDescr(const QString& descr, NpyHeader& header)
{
    auto unsupported = [&] {
        return Error{QStringLiteral("unsupported dtype '%1': weights must be float16, float32 or float64 "
                                    "('<f2', '<f4', '<f8' or big-endian '>f...')")
                         .arg(descr)};
    };
    if (descr.size() < 3)
        return unsupported();
    const QChar order = descr[0];
    header.kind = char(descr[1].toLatin1());
    bool ok = false;
    header.item_size = descr.mid(2).toInt(&ok);
    if (!ok || (order != u'<' && order != u'>' && order != u'|' && order != u'='))
        return unsupported();
    const bool sizeOk =
        header.kind == 'f' ? (header.item_size == 2 || header.item_size == 4 || header.item_size == 8)
        : (header.kind == 'i' || header.kind == 'u')
            ? (header.item_size == 1 || header.item_size == 2 || header.item_size == 4 || header.item_size == 8)
        : header.kind == 'b' ? header.item_size == 1
                             : false;
    if (!sizeOk)
        return unsupported();
    const bool hostBig = QSysInfo::ByteOrder == QSysInfo::BigEndian;
    header.big_endian = order == u'>' || (order != u'<' && hostBig);
    return {};
}

// Checks that the data after the header is exactly what the shape needs; returns the item count.
Result<std::int64_t> checkDataSize(const NpyHeader& header, qint64 total_size)
{
    const auto count = elementCount(header.shape);
    if (!count || *count > std::numeric_limits<std::int64_t>::max() / header.item_size)
        return Error{QStringLiteral("shape %1 has too many elements (the count overflows 64 bits)")
                         .arg(shapeString(header.shape))};
    const std::int64_t needed = *count * header.item_size;
    const qint64 available = total_size - header.data_offset;
    if (needed > available)
        return Error{
            QStringLiteral("the data is truncated: shape %1 of '%2' needs %3 bytes, the file has %4 after the header")
                .arg(shapeString(header.shape), header.descr)
                .arg(needed)
                .arg(available)};
    if (needed < available)
        return Error{QStringLiteral("%1 bytes of trailing data after the %2 bytes that shape %3 of '%4' needs")
                         .arg(available - needed)
                         .arg(needed)
                         .arg(shapeString(header.shape), header.descr)};
    return *count;
}

// What read() needs of a header before it allocates: a float dtype, data of exactly the size the
// shape needs, and a shape within TensorSource::kMaxTensorElements.
Status checkFloatArray(const NpyHeader& header, qint64 total_size)
{
    if (header.kind != 'f')
        return Error{
            QStringLiteral("dtype '%1' is not a floating-point type; weights must be float16, float32 or float64")
                .arg(header.descr)};
    auto count = checkDataSize(header, total_size);
    if (!count)
        return Error{count.error()};
    if (auto problem = tensorSizeProblem(header.shape))
        return Error{*problem};
    return {};
}

// Reorders a Fortran-order buffer (first index fastest) into C order (last index fastest).
void fortranToC(const float* fortran, const Shape& shape, float* c_order, std::int64_t count)
{
    const size_t ndim = shape.size();                   // at most kMaxDimensions (parseShape refuses more)
    std::array<std::int64_t, kMaxDimensions> stride{};  // Fortran strides, in items
    std::array<std::int64_t, kMaxDimensions> index{};   // the C-order multi-index
    stride[0] = 1;
    for (size_t d = 1; d < ndim; ++d)
        stride[d] = stride[d - 1] * shape[d - 1];
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < count; ++i) {
        c_order[i] = fortran[offset];
        for (size_t d = ndim; d-- > 0;) {  // odometer: advance the last index, carry leftwards
            if (++index[d] < shape[d]) {
                offset += stride[d];
                break;
            }
            offset -= stride[d] * (shape[d] - 1);
            index[d] = 0;
        }
    }
}

QString fileNameOf(const QString& path)
{
    const QString name = QFileInfo(path).fileName();
    return name.isEmpty() ? path : name;
}

}  // namespace

Result<NpyHeader> NpyReader::parseHeader(QByteArrayView bytes)
{
    if (bytes.size() < kMagicSize + 2 || bytes.first(kMagicSize) != QByteArrayView(kMagic, kMagicSize))
        return Error{QStringLiteral("not a .npy file (it does not start with the magic \\x93NUMPY)")};
    NpyHeader header;
    header.major_version = quint8(bytes[6]);
    const int minor = quint8(bytes[7]);
    if ((header.major_version < 1 || header.major_version > 3) || minor != 0)
        return Error{QStringLiteral("unsupported .npy version %1.%2 (1.0, 2.0 and 3.0 are read)")
                         .arg(header.major_version)
                         .arg(minor)};
    const int lengthBytes = header.major_version == 1 ? 2 : 4;
    const qint64 prefix = kMagicSize + 2 + lengthBytes;
    if (bytes.size() < prefix)
        return Error{QStringLiteral("the file ends inside the .npy header")};
    const qint64 length = header.major_version == 1 ? qint64(qFromLittleEndian<quint16>(bytes.data() + 8))
                                                    : qint64(qFromLittleEndian<quint32>(bytes.data() + 8));
    if (length > kMaxHeaderBytes)
        return Error{QStringLiteral("the .npy header claims %1 bytes (limit %2)").arg(length).arg(kMaxHeaderBytes)};
    if (bytes.size() < prefix + length)
        return Error{QStringLiteral("the file ends inside the .npy header (%1 bytes claimed, %2 present)")
                         .arg(length)
                         .arg(bytes.size() - prefix)};
    header.data_offset = prefix + length;

    DictLexer lexer(bytes.sliced(prefix, length));
    bool haveDescr = false, haveOrder = false, haveShape = false;
    if (!lexer.accept('{'))
        return Error{QStringLiteral("the .npy header is not a dict literal")};
    while (!lexer.accept('}')) {
        const auto key = lexer.string();
        if (!key || !lexer.accept(':'))
            return Error{QStringLiteral("the .npy header is not a valid dict literal")};
        if (*key == u"descr" && !haveDescr) {
            if (lexer.peek() == '[')
                return Error{
                    QStringLiteral("structured dtypes are not supported; weights must be float16, float32 or float64")};
            const auto descr = lexer.string();
            if (!descr)
                return Error{QStringLiteral("the header's 'descr' is not a string")};
            header.descr = *descr;
            if (Status status = parseDescr(header.descr, header); !status)
                return Error{status.error()};
            haveDescr = true;
        } else if (*key == u"fortran_order" && !haveOrder) {
            const QByteArrayView word = lexer.word();
            if (word != "True" && word != "False")
                return Error{QStringLiteral("the header's 'fortran_order' is not True or False")};
            header.fortran_order = word == "True";
            haveOrder = true;
        } else if (*key == u"shape" && !haveShape) {
            auto shape = parseShape(lexer);
            if (!shape)
                return Error{shape.error()};
            header.shape = std::move(shape).value();
            haveShape = true;
        } else {
            return Error{QStringLiteral("unexpected or repeated key '%1' in the .npy header").arg(*key)};
        }
        if (!lexer.accept(',') && lexer.peek() != '}')
            return Error{QStringLiteral("the .npy header is not a valid dict literal")};
    }
    if (!lexer.atEnd())
        return Error{QStringLiteral("unexpected text after the .npy header's dict")};
    if (!haveDescr || !haveOrder || !haveShape)
        return Error{QStringLiteral("the .npy header lacks one of 'descr', 'fortran_order' and 'shape'")};
    return header;
}

Result<TensorArray> NpyReader::read(QByteArrayView bytes)
{
    auto header = parseHeader(bytes);
    if (!header)
        return Error{header.error()};
    if (Status status = checkFloatArray(*header, bytes.size()); !status)
        return Error{status.error()};
    const std::int64_t count = *elementCount(header->shape);  // checked by checkFloatArray

    const FloatFormat format = header->item_size == 2   ? FloatFormat::F16
                               : header->item_size == 4 ? FloatFormat::F32
                                                        : FloatFormat::F64;
    const ByteOrder order = header->big_endian ? ByteOrder::Big : ByteOrder::Little;
    TensorArray array;
    array.shape = header->shape;
    const auto [rows, cols] = TensorArray::matrixDims(array.shape);
    array.values.resize(rows, cols);
    const char* data = bytes.data() + header->data_offset;
    if (!header->fortran_order || array.shape.size() < 2) {
        decodeFloats(data, count, format, order, array.values.data());
    } else {
        std::vector<float> fortran(static_cast<size_t>(count));
        decodeFloats(data, count, format, order, fortran.data());
        fortranToC(fortran.data(), array.shape, array.values.data(), count);
    }
    return array;
}

Result<std::int64_t> NpyReader::readInteger(QByteArrayView bytes)
{
    auto header = parseHeader(bytes);
    if (!header)
        return Error{header.error()};
    auto count = checkDataSize(*header, bytes.size());
    if (!count)
        return Error{count.error()};
    if (*count != 1)
        return Error{QStringLiteral("expected a single value, got shape %1").arg(shapeString(header->shape))};
    const char* p = bytes.data() + header->data_offset;
    const bool big = header->big_endian;
    auto load = [&]<typename T>(T) { return big ? qFromBigEndian<T>(p) : qFromLittleEndian<T>(p); };
    if (header->kind == 'f') {
        float value = 0;
        decodeFloats(p, 1,
                     header->item_size == 2   ? FloatFormat::F16
                     : header->item_size == 4 ? FloatFormat::F32
                                              : FloatFormat::F64,
                     big ? ByteOrder::Big : ByteOrder::Little, &value);
        if (!std::isfinite(value) || value != std::floor(value) || std::abs(value) > 1e15f)
            return Error{QStringLiteral("the value %1 is not an integer").arg(double(value))};
        return std::int64_t(value);
    }
    if (header->kind == 'b')
        return Error{QStringLiteral("expected an integer, got a boolean")};
    const bool isSigned = header->kind == 'i';
    switch (header->item_size) {
        case 1:
            return isSigned ? std::int64_t(qint8(*p)) : std::int64_t(quint8(*p));
        case 2:
            return isSigned ? std::int64_t(load(qint16{})) : std::int64_t(load(quint16{}));
        case 4:
            return isSigned ? std::int64_t(load(qint32{})) : std::int64_t(load(quint32{}));
        default: {
            if (isSigned)
                return std::int64_t(load(qint64{}));
            const quint64 value = load(quint64{});
            if (value > quint64(std::numeric_limits<std::int64_t>::max()))
                return Error{QStringLiteral("the value %1 is too large").arg(value)};
            return std::int64_t(value);
        }
    }
}

Result<TensorArray> NpyReader::readFile(const QString& path)
{
    return readFileAs(path, nullptr);
}

Result<Matrix> NpyReader::readMatrixFile(const QString& path)
{
    auto array = readFileAs(path, [](const NpyHeader& header) -> Status {
        const Shape& shape = header.shape;
        if (shape.size() != 2 || shape[0] < 1 || shape[1] < 1)
            return Error{
                QStringLiteral("expected a 2-D array (rows x columns) with at least one row and column, got shape %1")
                    .arg(shapeString(shape))};
        return {};
    });
    if (!array)
        return Error{array.error()};
    if (!array->values.allFinite())
        return Error{
            singleLine(QStringLiteral("%1: the matrix contains NaN or infinite values").arg(fileNameOf(path)))};
    return std::move(array).value().values;
}

Result<TensorArray> NpyReader::readFileAs(const QString& path, Status (*accept)(const NpyHeader&))
{
    const QString name = fileNameOf(path);
    auto fail = [&](const QString& reason) { return Error{singleLine(QStringLiteral("%1: %2").arg(name, reason))}; };
    const QFileInfo info(path);
    if (!info.exists())
        return fail(QStringLiteral("no such file"));
    if (info.isDir())
        return fail(QStringLiteral("is a directory, not a .npy file"));
    if (!info.isFile())
        return fail(QStringLiteral("is not a regular file"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot be opened (%1)").arg(file.errorString()));
    const qint64 size = file.size();
    if (size < kMagicSize + 4)
        return fail(QStringLiteral("not a .npy file (only %1 bytes)").arg(size));

    // The header's claims are checked against the file before the data is mapped or read.
    const QByteArray head = file.read(std::min<qint64>(size, kLongestPrefix));
    auto header = parseHeader(head);
    if (!header)
        return fail(header.error());
    if (accept) {
        if (Status status = accept(*header); !status)
            return fail(status.error());
    }
    if (Status status = checkFloatArray(*header, size); !status)
        return fail(status.error());

    // Map the file rather than copy it; fall back to reading when mapping is not possible.
    QByteArray copy;
    QByteArrayView bytes;
    if (uchar* mapped = file.map(0, size)) {
        bytes = QByteArrayView(reinterpret_cast<const char*>(mapped), size);
    } else {
        try {
            copy = file.seek(0) ? file.readAll() : QByteArray();
        } catch (const std::bad_alloc&) {
            return fail(QStringLiteral("too large to read into memory (%1 bytes)").arg(size));
        }
        if (copy.size() != size)
            return fail(QStringLiteral("could not be read completely (%1)").arg(file.errorString()));
        bytes = copy;
    }
    try {
        auto array = read(bytes);
        if (!array)
            return fail(array.error());
        return array;
    } catch (const std::bad_alloc&) {
        return fail(QStringLiteral("the array does not fit in memory"));
    }
}

}  // namespace attn
