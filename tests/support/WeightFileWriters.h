#pragma once

// Small writers for the weight-file tests: well-formed files built from values, and raw builders
// for files that lie (wrong lengths, bad offsets, zip members that misstate their sizes).

#include "core/base/Tensor.h"
#include "core/io/TensorSource.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace attn::testing {

// Little-endian element bytes.
QByteArray f32Bytes(const std::vector<float>& values);
QByteArray f64Bytes(const std::vector<double>& values);
QByteArray u16Bytes(const std::vector<std::uint16_t>& values);  // F16 / BF16 bit patterns
QByteArray i64Bytes(const std::vector<std::int64_t>& values);
// A math-layout matrix stored as torch nn.Linear (out, in): the transpose, C order, F32.
QByteArray torchLayoutF32(const Matrix& math);
QByteArray matrixF32(const Matrix& m);  // C order as is
QByteArray vectorF32(const RowVector& v);

bool writeFile(const QString& path, const QByteArray& bytes);

// safetensors
struct StTensor {
    QString name;
    QString dtype;
    Shape shape;
    QByteArray data;
};
// A valid file: tensors laid out back to back in the given order, header padded to 8 bytes.
QByteArray safetensors(const std::vector<StTensor>& tensors, const QJsonObject& metadata = {});
// Any header text and data section; the length field is the header's size unless given.
QByteArray safetensorsRaw(const QByteArray& header, const QByteArray& data,
                          std::optional<quint64> claimed_length = std::nullopt);

// npy: any header dict text (padded to 64 bytes and '\n'-terminated) in the given version.
QByteArray npyRaw(const QByteArray& dict, const QByteArray& data, int major_version = 1);
QByteArray npy(const QByteArray& descr, const QString& shape, const QByteArray& data, bool fortran = false);

// npz / zip
struct ZipMember {
    QString name;
    QByteArray data;
};
bool writeZip(const QString& path, const std::vector<ZipMember>& members, bool compress = true);
// One member written as given: `payload` is stored (method 0) or raw deflate (method 8) bytes,
// and the directory declares `declared_size` uncompressed bytes with CRC `crc`.
bool writeZipLying(const QString& path, const QString& name, const QByteArray& payload, int method, quint32 crc,
                   quint64 declared_size);
QByteArray rawDeflate(const QByteArray& data);  // deflate stream without zlib header/trailer
quint32 crc32Of(const QByteArray& data);

// Distinct, exactly representable math-layout weights for checking where every value lands.
struct SampleWeights {
    Matrix wq, wk, wv;     // (input_dim, d_model)
    RowVector bq, bk, bv;  // (d_model)
    Matrix wo;             // (d_model, output_dim)
    RowVector bo;          // (output_dim)
    static SampleWeights make(int input_dim, int d_model, int output_dim, float offset = 0.0f);
};

// Float32 arrays by name, as the schemes of WeightNaming.h store them.
struct NamedF32 {
    QString name;
    Shape shape;
    QByteArray data;
};
std::vector<NamedF32> mhaTensors(const SampleWeights& w, const QString& prefix = {});          // in_proj_weight ...
std::vector<NamedF32> mhaSeparateTensors(const SampleWeights& w, const QString& prefix = {});  // q_proj_weight ...
std::vector<NamedF32> projTensors(const SampleWeights& w, const QString& prefix, const QString& out_name = "out_proj");
std::vector<NamedF32> gpt2Tensors(const SampleWeights& w, const QString& prefix);  // prefix "h.0.attn."
QByteArray safetensorsF32(const std::vector<NamedF32>& tensors, const QJsonObject& metadata = {});
// An npz of the arrays as float32 .npy members, plus any extra members (e.g. num_heads.npy).
bool writeNpz(const QString& path, const std::vector<NamedF32>& tensors, const std::vector<ZipMember>& extra = {},
              bool compress = true);

}  // namespace attn::testing
