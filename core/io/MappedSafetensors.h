#pragma once

// A safetensors file (the format is described in SafetensorsReader.h, which validates the whole
// header) mapped into memory with QFile::map: opening reads only the header, and a tensor's bytes
// are read where they lie in the file, the first time they are used. Every byte range handed out
// has been checked against the file's size; the file is mapped read-only.

#include "core/io/SafetensorsReader.h"

#include <QFile>
#include <QString>

#include <memory>

namespace attn {

class MappedSafetensors {
public:
    using TensorInfo = SafetensorsReader::TensorInfo;

    // Messages are reasons without the file name, as SafetensorsReader's.
    static Result<std::unique_ptr<MappedSafetensors>> open(const QString& path);

    const QString& path() const { return m_path; }
    const std::vector<TensorInfo>& tensors() const { return m_reader->tensors(); }
    const TensorInfo* find(const QString& name) const { return m_reader->find(name); }

    // The first byte of a tensor's data (little-endian, C order), valid while this object lives.
    const uchar* data(const TensorInfo& tensor) const { return m_dataSection + tensor.begin; }

    // The tensor's bytes have been copied elsewhere: the kernel may drop its pages from this
    // process (they stay in the page cache, and are mapped in again if read once more), so a
    // converted weight does not count twice in the resident memory. A hint; without Linux a no-op.
    void release(const TensorInfo& tensor) const;

private:
    MappedSafetensors() = default;

    QString m_path;
    std::unique_ptr<SafetensorsReader> m_reader;
    QFile m_file;
    const uchar* m_dataSection = nullptr;
};

}  // namespace attn
