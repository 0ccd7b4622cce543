#pragma once

// A safetensors file (see SafetensorsHeader.h for the format and its checks) as a TensorSource:
// the header is read and validated when the file is opened; a tensor's bytes are read only when
// it is asked for, straight into the float32 matrix when they are F32 already.

#include "core/io/SafetensorsHeader.h"
#include "core/io/TensorSource.h"

#include <QIODevice>
#include <QMap>
#include <QString>

#include <memory>

namespace attn {

class SafetensorsReader : public TensorSource {
public:
    using TensorInfo = SafetensorsTensorInfo;
    static constexpr qint64 kMaxHeaderBytes = SafetensorsHeader::kMaxHeaderBytes;

    // Opens and validates the whole header. Messages are reasons without the file name.
    static Result<std::unique_ptr<SafetensorsReader>> open(const QString& path);
    // The same for a random-access device open for reading (a QBuffer holding a whole file).
    static Result<std::unique_ptr<SafetensorsReader>> open(std::unique_ptr<QIODevice> device);

    const std::vector<TensorInfo>& tensors() const { return m_header.tensors(); }  // in data order
    const TensorInfo* find(const QString& name) const { return m_header.find(name); }
    const QMap<QString, QString>& metadata() const { return m_header.metadata(); }
    qint64 dataOffset() const { return m_dataStart; }  // where the data section begins in the file
    qint64 fileSize() const { return m_dataStart + m_dataSize; }

    QStringList tensorNames() const override;
    Result<Shape> tensorShape(const QString& name) override;
    Result<TensorArray> readTensor(const QString& name) override;
    Result<std::optional<int>> declaredNumHeads() override;
    QString numHeadsHint() const override;

private:
    SafetensorsReader() = default;

    std::unique_ptr<QIODevice> m_device;
    qint64 m_dataStart = 0;
    qint64 m_dataSize = 0;
    SafetensorsHeader m_header;
};

}  // namespace attn
