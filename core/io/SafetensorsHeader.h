#pragma once

// safetensors (huggingface/safetensors, docs "Format"; the checks follow its reference reader,
// safetensors/src/tensor.rs):
//   1. 8 bytes: N, an unsigned little-endian 64-bit integer, the size of the header, at most
//      100,000,000 bytes.
//   2. N bytes: the header, a UTF-8 JSON object, which may be padded with JSON whitespace before
//      and after (not with a byte-order mark). Each key is a tensor name mapped to
//      {"dtype": "F32", "shape": [3, 4], "data_offsets": [begin, end]} (other fields ignored);
//      the special key "__metadata__" maps to a flat object of strings, e.g. {"num_heads": "8"},
//      or null. A name given twice, or a field given twice, is an error.
//   3. The rest of the file: the data section. Offsets are relative to its start, end exclusive;
//      each tensor's bytes are product(shape) * dtype size, little-endian, C order; the tensors
//      cover the data section exactly, without holes or overlaps.
// The dtypes of the format (F16, BF16, F32, F64, BOOL, U8, I8, I16, U16, I32, U32, I64, U64, C64,
// F8_E5M2, F8_E4M3, F8_E8M0, F6_E2M3, F6_E3M2, F4) have their byte counts checked against the
// shape. A dtype this reader does not know is kept as written with its offsets checked (the
// tensor still has to fit the data section), so a file holding a newer dtype opens as long as
// that tensor is not used; using it is an error that names it.
// These are checks on the header alone: a reader of whole model folders can run them on a header
// it has read (or mapped) itself, before it trusts a single offset.

#include "core/io/FloatConversion.h"
#include "core/io/TensorSource.h"

#include <QByteArrayView>
#include <QHash>
#include <QMap>
#include <QString>

#include <optional>
#include <vector>

namespace attn {

struct SafetensorsTensorInfo {
    QString name;
    QString dtype;                      // as written, e.g. "BF16"
    bool known_dtype = false;           // one of the format's dtypes above: its byte count was checked
    std::optional<FloatFormat> format;  // set for the weight dtypes F16, BF16, F32, F64
    Shape shape;
    qint64 begin = 0;  // byte range in the data section, end exclusive
    qint64 end = 0;
};

class SafetensorsHeader {
public:
    static constexpr qint64 kLengthBytes = 8;
    static constexpr qint64 kMaxHeaderBytes = 100'000'000;

    // N from the file's first 8 bytes (`prefix` holds at least those, or the whole file if it is
    // shorter), checked against the format's limit and the size of the file.
    static Result<qint64> headerLength(QByteArrayView prefix, qint64 file_size);
    // The N header bytes, for a data section of `data_size` bytes (the file size - 8 - N).
    static Result<SafetensorsHeader> parse(QByteArrayView json, qint64 data_size);

    const std::vector<SafetensorsTensorInfo>& tensors() const { return m_tensors; }  // in data order
    const SafetensorsTensorInfo* find(const QString& name) const;
    const QMap<QString, QString>& metadata() const { return m_metadata; }

private:
    std::vector<SafetensorsTensorInfo> m_tensors;
    QHash<QString, qsizetype> m_index;  // name -> position in m_tensors
    QMap<QString, QString> m_metadata;
};

}  // namespace attn
