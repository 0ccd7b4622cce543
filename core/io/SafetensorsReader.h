#pragma once

// safetensors (huggingface/safetensors, docs "Format"), as read here:
//   1. 8 bytes: N, an unsigned little-endian 64-bit integer, the size of the header.
//   2. N bytes: the header, a UTF-8 JSON object (it may end with 0x20 padding), limited to
//      100,000,000 bytes as the format specifies. Each key is a tensor name mapped to
//      {"dtype": "F32", "shape": [3, 4], "data_offsets": [begin, end]}; the special key
//      "__metadata__" maps to a flat object of strings, e.g. {"num_heads": "8"}.
//   3. The rest of the file: the data section. Offsets are relative to its start, end exclusive;
//      each tensor's bytes are product(shape) * dtype size, little-endian, C order; the tensors
//      cover the data section exactly, without holes or overlaps.
// Every claim of the header (its length, offsets, shapes) is checked against the file before
// anything is allocated from it. F16, BF16, F32 and F64 tensors are weights and are converted to
// float32; the other dtypes of the format (BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F8_*, F4,
// F6_*, C64) are validated but can be read only as "not a weight".

#include "core/io/FloatConversion.h"
#include "core/io/TensorSource.h"

#include <QFile>
#include <QMap>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace attn {

class SafetensorsReader : public TensorSource {
public:
    static constexpr qint64 kMaxHeaderBytes = 100'000'000;

    struct TensorInfo {
        QString name;
        QString dtype;                      // as written, e.g. "BF16"
        std::optional<FloatFormat> format;  // set for the weight dtypes F16, BF16, F32, F64
        Shape shape;
        qint64 begin = 0;  // byte range in the data section, end exclusive
        qint64 end = 0;
    };

    // Opens and validates the whole header. Messages are reasons without the file name.
    static Result<std::unique_ptr<SafetensorsReader>> open(const QString& path);

    const std::vector<TensorInfo>& tensors() const { return m_tensors; }  // in data order
    const TensorInfo* find(const QString& name) const;
    const QMap<QString, QString>& metadata() const { return m_metadata; }
    qint64 dataOffset() const { return m_dataStart; }  // where the data section begins in the file
    qint64 fileSize() const { return m_dataStart + m_dataSize; }

    QStringList tensorNames() const override;
    Result<TensorArray> readTensor(const QString& name) override;
    Result<std::optional<int>> declaredNumHeads() override;
    QString numHeadsHint() const override;

private:
    SafetensorsReader() = default;
    Status parseHeader(const QByteArray& json, qint64 data_size);

    QFile m_file;
    qint64 m_dataStart = 0;
    qint64 m_dataSize = 0;
    std::vector<TensorInfo> m_tensors;
    QMap<QString, QString> m_metadata;
};

}  // namespace attn
