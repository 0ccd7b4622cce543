#include "tests/support/WeightFileWriters.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtEndian>

#include <quazip/quazip.h>
#include <quazip/quazipfile.h>
#include <quazip/quazipnewinfo.h>
#include <zlib.h>

namespace attn::testing {

template <typename T, typename V>
static QByteArray littleEndian(const std::vector<V>& values)
{
    QByteArray out(qsizetype(values.size() * sizeof(T)), '\0');
    for (size_t i = 0; i < values.size(); ++i)
        qToLittleEndian<T>(T(values[i]), out.data() + i * sizeof(T));
    return out;
}

QByteArray f32Bytes(const std::vector<float>& values)
{
    return littleEndian<float>(values);
}
QByteArray f64Bytes(const std::vector<double>& values)
{
    return littleEndian<double>(values);
}
QByteArray u16Bytes(const std::vector<std::uint16_t>& values)
{
    return littleEndian<quint16>(values);
}
QByteArray i64Bytes(const std::vector<std::int64_t>& values)
{
    return littleEndian<qint64>(values);
}

QByteArray matrixF32(const Matrix& m)
{
    return f32Bytes(std::vector<float>(m.data(), m.data() + m.size()));
}

QByteArray torchLayoutF32(const Matrix& math)
{
    return matrixF32(Matrix(math.transpose()));
}

QByteArray vectorF32(const RowVector& v)
{
    return f32Bytes(std::vector<float>(v.data(), v.data() + v.size()));
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

QByteArray safetensors(const std::vector<StTensor>& tensors, const QJsonObject& metadata)
{
    QJsonObject header;
    QByteArray data;
    for (const StTensor& t : tensors) {
        QJsonArray shape;
        for (std::int64_t d : t.shape)
            shape.append(qint64(d));
        const qint64 begin = data.size();
        data.append(t.data);
        header.insert(t.name, QJsonObject{{"dtype", t.dtype},
                                          {"shape", shape},
                                          {"data_offsets", QJsonArray{begin, qint64(data.size())}}});
    }
    if (!metadata.isEmpty())
        header.insert("__metadata__", metadata);
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (json.size() % 8 != 0)
        json.append(' ');  // the format allows trailing spaces
    return safetensorsRaw(json, data);
}

QByteArray safetensorsRaw(const QByteArray& header, const QByteArray& data, std::optional<quint64> claimed_length)
{
    QByteArray out(8, '\0');
    qToLittleEndian<quint64>(claimed_length.value_or(quint64(header.size())), out.data());
    return out + header + data;
}

QByteArray npyRaw(const QByteArray& dict, const QByteArray& data, int major_version)
{
    const int lengthBytes = major_version == 1 ? 2 : 4;
    QByteArray header = dict;
    while ((6 + 2 + lengthBytes + header.size() + 1) % 64 != 0)
        header.append(' ');
    header.append('\n');
    QByteArray out("\x93NUMPY", 6);
    out.append(char(major_version));
    out.append('\0');
    QByteArray length(lengthBytes, '\0');
    if (major_version == 1)
        qToLittleEndian<quint16>(quint16(header.size()), length.data());
    else
        qToLittleEndian<quint32>(quint32(header.size()), length.data());
    return out + length + header + data;
}

QByteArray npy(const QByteArray& descr, const QString& shape, const QByteArray& data, bool fortran)
{
    const QByteArray dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                            ", 'shape': " + shape.toLatin1() + ", }";
    return npyRaw(dict, data);
}

bool writeZip(const QString& path, const std::vector<ZipMember>& members, bool compress)
{
    QuaZip zip(path);
    if (!zip.open(QuaZip::mdCreate))
        return false;
    for (const ZipMember& m : members) {
        QuaZipFile file(&zip);
        if (!file.open(QIODevice::WriteOnly, QuaZipNewInfo(m.name), nullptr, 0, compress ? Z_DEFLATED : 0))
            return false;
        if (file.write(m.data) != m.data.size())
            return false;
        file.close();
        if (file.getZipError() != ZIP_OK)
            return false;
    }
    zip.close();
    return zip.getZipError() == ZIP_OK;
}

bool writeZipLying(const QString& path, const QString& name, const QByteArray& payload, int method, quint32 crc,
                   quint64 declared_size)
{
    QuaZip zip(path);
    if (!zip.open(QuaZip::mdCreate))
        return false;
    QuaZipFile file(&zip);
    QuaZipNewInfo info(name);
    info.uncompressedSize = ulong(declared_size);
    if (!file.open(QIODevice::WriteOnly, info, nullptr, crc, method, Z_DEFAULT_COMPRESSION, true))
        return false;
    if (file.write(payload) != payload.size())
        return false;
    file.close();
    zip.close();
    return zip.getZipError() == ZIP_OK;
}

QByteArray rawDeflate(const QByteArray& data)
{
    z_stream stream{};
    deflateInit2(&stream, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
    QByteArray out(qsizetype(deflateBound(&stream, uLong(data.size()))), '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.constData()));
    stream.avail_in = uInt(data.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = uInt(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(qsizetype(stream.total_out));
    deflateEnd(&stream);
    return out;
}

quint32 crc32Of(const QByteArray& data)
{
    return quint32(crc32(0, reinterpret_cast<const Bytef*>(data.constData()), uInt(data.size())));
}

SampleWeights SampleWeights::make(int input_dim, int d_model, int output_dim, float offset)
{
    // Multiples of 1/64 are exact in float32 (and in F16 for small ones): no rounding anywhere.
    auto fill = [&](Eigen::Index rows, Eigen::Index cols, int salt) {
        Matrix m(rows, cols);
        for (Eigen::Index r = 0; r < rows; ++r)
            for (Eigen::Index c = 0; c < cols; ++c)
                m(r, c) = offset + float(((r * 7 + c * 3 + salt * 5) % 23) - 11) / 64.0f + float(salt) / 8.0f;
        return m;
    };
    SampleWeights w;
    w.wq = fill(input_dim, d_model, 1);
    w.wk = fill(input_dim, d_model, 2);
    w.wv = fill(input_dim, d_model, 3);
    w.bq = fill(1, d_model, 4);
    w.bk = fill(1, d_model, 5);
    w.bv = fill(1, d_model, 6);
    w.wo = fill(d_model, output_dim, 7);
    w.bo = fill(1, output_dim, 8);
    return w;
}

static NamedF32 named(const QString& name, const Matrix& m, bool torch)
{
    if (torch)
        return {name, {m.cols(), m.rows()}, torchLayoutF32(m)};
    return {name, {m.rows(), m.cols()}, matrixF32(m)};
}

static NamedF32 namedVector(const QString& name, const RowVector& v)
{
    return {name, {v.size()}, vectorF32(v)};
}

static Matrix concat3(const Matrix& a, const Matrix& b, const Matrix& c)
{
    Matrix m(a.rows(), a.cols() * 3);
    m << a, b, c;
    return m;
}

static RowVector concat3(const RowVector& a, const RowVector& b, const RowVector& c)
{
    RowVector v(a.size() * 3);
    v << a, b, c;
    return v;
}

std::vector<NamedF32> mhaTensors(const SampleWeights& w, const QString& prefix)
{
    return {named(prefix + "in_proj_weight", concat3(w.wq, w.wk, w.wv), true),
            namedVector(prefix + "in_proj_bias", concat3(w.bq, w.bk, w.bv)),
            named(prefix + "out_proj.weight", w.wo, true), namedVector(prefix + "out_proj.bias", w.bo)};
}

std::vector<NamedF32> mhaSeparateTensors(const SampleWeights& w, const QString& prefix)
{
    return {
        named(prefix + "q_proj_weight", w.wq, true),   named(prefix + "k_proj_weight", w.wk, true),
        named(prefix + "v_proj_weight", w.wv, true),   namedVector(prefix + "in_proj_bias", concat3(w.bq, w.bk, w.bv)),
        named(prefix + "out_proj.weight", w.wo, true), namedVector(prefix + "out_proj.bias", w.bo)};
}

std::vector<NamedF32> projTensors(const SampleWeights& w, const QString& prefix, const QString& out_name)
{
    return {named(prefix + "q_proj.weight", w.wq, true),      namedVector(prefix + "q_proj.bias", w.bq),
            named(prefix + "k_proj.weight", w.wk, true),      namedVector(prefix + "k_proj.bias", w.bk),
            named(prefix + "v_proj.weight", w.wv, true),      namedVector(prefix + "v_proj.bias", w.bv),
            named(prefix + out_name + ".weight", w.wo, true), namedVector(prefix + out_name + ".bias", w.bo)};
}

std::vector<NamedF32> gpt2Tensors(const SampleWeights& w, const QString& prefix)
{
    return {named(prefix + "c_attn.weight", concat3(w.wq, w.wk, w.wv), false),
            namedVector(prefix + "c_attn.bias", concat3(w.bq, w.bk, w.bv)),
            named(prefix + "c_proj.weight", w.wo, false), namedVector(prefix + "c_proj.bias", w.bo)};
}

QByteArray safetensorsF32(const std::vector<NamedF32>& tensors, const QJsonObject& metadata)
{
    std::vector<StTensor> st;
    for (const NamedF32& t : tensors)
        st.push_back({t.name, "F32", t.shape, t.data});
    return safetensors(st, metadata);
}

bool writeNpz(const QString& path, const std::vector<NamedF32>& tensors, const std::vector<ZipMember>& extra,
              bool compress)
{
    std::vector<ZipMember> members;
    for (const NamedF32& t : tensors)
        members.push_back({t.name + ".npy", npy("<f4", shapeString(t.shape), t.data)});
    members.insert(members.end(), extra.begin(), extra.end());
    return writeZip(path, members, compress);
}

}  // namespace attn::testing
