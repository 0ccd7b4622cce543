#include "core/io/NpzReader.h"

#include "core/io/NpyReader.h"

#include <QFile>
#include <QtEndian>

#include <quazip/quazip.h>
#include <quazip/quazipfile.h>
#include <quazip/quazipfileinfo.h>

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <new>

namespace attn {
namespace {

constexpr qint64 kChunkBytes = qint64(1) << 20;
const QString kNpySuffix = QStringLiteral(".npy");

QString zipErrorText(int code)
{
    switch (code) {
        case UNZ_CRCERROR:
            return QStringLiteral("CRC mismatch");
        case UNZ_BADZIPFILE:
            return QStringLiteral("damaged zip structure");
        case Z_DATA_ERROR:
            return QStringLiteral("damaged compressed data");
        case UNZ_ERRNO:
            return QStringLiteral("the file could not be read");
        case UNZ_END_OF_LIST_OF_FILE:
            return QStringLiteral("a member listed in the directory is missing");
        case UNZ_OPENERROR:
            return QStringLiteral("the file could not be opened as a zip archive");
        default:
            return QStringLiteral("the zip reader failed with code %1").arg(code);
    }
}

// Why the archive cannot be opened, in words: minizip reports every case as UNZ_OPENERROR.
QString openFailure(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot be opened (%1)").arg(file.errorString());
    if (!file.read(2).startsWith("PK"))
        return QStringLiteral(
            "not a zip archive: an .npz is a zip of .npy members (what numpy.savez writes), and this file does not "
            "start like one");
    return QStringLiteral(
        "not a zip archive that can be read: it starts like one, but the directory at its end is missing or damaged "
        "(a file cut short?)");
}

// Just an end-of-central-directory record ("PK\x05\x06", 18 bytes, and a comment).
bool isEmptyZip(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || file.size() < 22 || file.size() > 22 + 65535)
        return false;
    const QByteArray bytes = file.readAll();
    return bytes.startsWith(QByteArrayLiteral("PK\x05\x06")) && qFromLittleEndian<quint16>(bytes.constData() + 10) == 0;
}

}  // namespace

NpzReader::NpzReader() = default;
NpzReader::~NpzReader() = default;

Result<std::unique_ptr<NpzReader>> NpzReader::open(const QString& path)
{
    std::unique_ptr<NpzReader> reader(new NpzReader);
    reader->m_zip = std::make_unique<QuaZip>(path);
    if (!reader->m_zip->open(QuaZip::mdUnzip)) {
        if (isEmptyZip(path))  // minizip cannot open an archive without entries
            return reader;
        return Error{openFailure(path)};
    }
    const QStringList files = reader->m_zip->getFileNameList();
    if (reader->m_zip->getZipError() != UNZ_OK)
        return Error{
            QStringLiteral("the zip directory cannot be read (%1)").arg(zipErrorText(reader->m_zip->getZipError()))};
    for (const QString& file : files) {
        if (!file.endsWith(kNpySuffix))
            continue;
        const QString name = file.chopped(kNpySuffix.size());
        if (reader->m_members.contains(name))
            return Error{QStringLiteral("the archive holds member '%1' twice").arg(file)};
        reader->m_members.insert(name, file);
        reader->m_names << name;
    }
    return reader;
}

QStringList NpzReader::tensorNames() const
{
    return m_names;
}

Result<QByteArray> NpzReader::readMember(const QString& name)
{
    const auto member = m_members.constFind(name);
    if (member == m_members.cend())
        return Error{QStringLiteral("no member '%1%2'").arg(name, kNpySuffix)};
    auto fail = [&](const QString& reason) { return Error{QStringLiteral("member '%1': %2").arg(*member, reason)}; };
    if (!m_zip->setCurrentFile(*member, QuaZip::csSensitive))
        return fail(QStringLiteral("cannot be found in the zip directory"));

    QuaZipFileInfo64 info;
    if (!m_zip->getCurrentFileInfo(&info))
        return fail(QStringLiteral("its zip entry cannot be read"));
    if (info.flags & 1)
        return fail(QStringLiteral("is encrypted"));
    if (info.method != 0 && info.method != Z_DEFLATED)
        return fail(
            QStringLiteral("uses compression method %1; .npz members are stored (0) or deflated (8)").arg(info.method));
    if (info.uncompressedSize > quint64(kMaxTotalBytes - m_inflated))
        return fail(QStringLiteral("declares %1 bytes uncompressed, over the %2-byte limit for one archive")
                        .arg(info.uncompressedSize)
                        .arg(kMaxTotalBytes));
    const qint64 declared = qint64(info.uncompressedSize);

    // The compressed bytes are read raw and inflated here, so that inflating stops as soon as the
    // output would pass the declared size, whatever the stream holds.
    QuaZipFile file(m_zip.get());
    int method = 0;
    int level = 0;
    if (!file.open(QIODevice::ReadOnly, &method, &level, true))
        return fail(QStringLiteral("cannot be opened (%1)").arg(zipErrorText(file.getZipError())));
    const bool deflated = method == Z_DEFLATED;
    z_stream stream{};
    if (deflated && inflateInit2(&stream, -MAX_WBITS) != Z_OK)
        return fail(QStringLiteral("the inflater cannot start"));
    struct StreamEnd {
        z_stream* stream;
        bool active;
        ~StreamEnd()
        {
            if (active)
                inflateEnd(stream);
        }
    } streamEnd{&stream, deflated};

    QByteArray data;  // grows with what actually arrives, never with what the directory claims
    bool ended = !deflated;
    // The .npy header states the array's size: it must agree with the declared size, checked as
    // soon as the header has arrived.
    bool headerChecked = false;
    auto checkHeader = [&]() -> Status {
        if (headerChecked || (data.size() < 10 + NpyReader::kMaxHeaderBytes && data.size() < declared))
            return {};
        headerChecked = true;
        auto header = NpyReader::parseHeader(data);
        if (!header)
            return Error{header.error()};
        const auto count = elementCount(header->shape);
        if (!count || *count > (std::numeric_limits<qint64>::max() - header->data_offset) / header->item_size)
            return Error{QStringLiteral("its .npy shape %1 has too many elements (the count overflows 64 bits)")
                             .arg(shapeString(header->shape))};
        const qint64 needed = header->data_offset + *count * header->item_size;
        if (needed != declared)
            return Error{QStringLiteral("its .npy header (shape %1 of '%2') needs %3 bytes but the member declares %4")
                             .arg(shapeString(header->shape), header->descr)
                             .arg(needed)
                             .arg(declared)};
        return {};
    };
    try {
        std::vector<char> in(static_cast<size_t>(kChunkBytes));
        std::vector<char> out(static_cast<size_t>(kChunkBytes));
        for (;;) {
            const qint64 n = file.read(in.data(), kChunkBytes);
            if (n < 0)
                return fail(QStringLiteral("cannot be read (%1)").arg(zipErrorText(file.getZipError())));
            if (n == 0)
                break;
            if (!deflated) {
                if (data.size() + n > declared)
                    return fail(QStringLiteral("holds more than its declared size of %1 bytes").arg(declared));
                data.append(in.data(), n);
                m_inflated += n;
                if (Status header = checkHeader(); !header)
                    return fail(header.error());
            } else {
                if (ended)
                    return fail(QStringLiteral("has data after the end of its deflate stream"));
                stream.next_in = reinterpret_cast<Bytef*>(in.data());
                stream.avail_in = uInt(n);
                while (stream.avail_in > 0 && !ended) {
                    // At most one byte more than the declared size may come out: enough to notice.
                    const qint64 room = std::min<qint64>(kChunkBytes, declared - data.size() + 1);
                    stream.next_out = reinterpret_cast<Bytef*>(out.data());
                    stream.avail_out = uInt(room);
                    const int status = inflate(&stream, Z_NO_FLUSH);
                    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR)
                        return fail(QStringLiteral("its deflate data is damaged (%1)").arg(zipErrorText(status)));
                    const qint64 produced = room - qint64(stream.avail_out);
                    if (data.size() + produced > declared)
                        return fail(QStringLiteral("inflates past its declared size of %1 bytes").arg(declared));
                    data.append(out.data(), produced);
                    m_inflated += produced;
                    if (Status header = checkHeader(); !header)
                        return fail(header.error());
                    ended = status == Z_STREAM_END;
                    if (status == Z_BUF_ERROR && produced == 0)
                        break;
                }
                if (ended && stream.avail_in > 0)
                    return fail(QStringLiteral("has data after the end of its deflate stream"));
            }
        }
    } catch (const std::bad_alloc&) {
        return fail(QStringLiteral("does not fit in memory"));
    }
    if (!ended)
        return fail(QStringLiteral("its deflate stream is truncated"));
    if (data.size() != declared)
        return fail(QStringLiteral("inflates to %1 bytes but declares %2").arg(data.size()).arg(declared));
    const quint32 crc = quint32(crc32(0, reinterpret_cast<const Bytef*>(data.constData()), uInt(data.size())));
    if (crc != info.crc)
        return fail(QStringLiteral("CRC mismatch (the data is damaged)"));
    return data;
}

Result<TensorArray> NpzReader::readTensor(const QString& name)
{
    auto bytes = readMember(name);
    if (!bytes)
        return Error{bytes.error()};
    try {
        auto array = NpyReader::read(*bytes);
        if (!array)
            return Error{QStringLiteral("member '%1%2': %3").arg(name, kNpySuffix, array.error())};
        return array;
    } catch (const std::bad_alloc&) {
        return Error{QStringLiteral("member '%1%2' does not fit in memory").arg(name, kNpySuffix)};
    }
}

Result<std::optional<int>> NpzReader::declaredNumHeads()
{
    const QString key = QStringLiteral("num_heads");
    if (!m_members.contains(key))
        return std::optional<int>{};
    auto bytes = readMember(key);
    if (!bytes)
        return Error{bytes.error()};
    auto value = NpyReader::readInteger(*bytes);
    if (!value)
        return Error{QStringLiteral("member 'num_heads.npy': %1").arg(value.error())};
    auto heads = checkNumHeads(*value);
    if (!heads)
        return Error{QStringLiteral("member 'num_heads.npy': %1").arg(heads.error())};
    return std::optional<int>{*heads};
}

QString NpzReader::numHeadsHint() const
{
    return QStringLiteral("no integer member 'num_heads' in the archive");
}

}  // namespace attn
