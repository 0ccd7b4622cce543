#pragma once

// NumPy .npz archives (numpy.savez / savez_compressed), as read here:
//   1. A zip archive (stored or deflated members), read with QuaZip.
//   2. Each member "name.npy" is one .npy file (see NpyReader.h); the array's name is the member
//      name without ".npy". Members with other names are ignored.
//   3. An integer member "num_heads" (0-d or one element) states the number of heads.
// A member's sizes in the zip directory are claims, not facts: nothing is allocated from them.
// A member is read in chunks, never past its declared uncompressed size, its .npy header is
// checked against that size as soon as it arrives, a member that inflates to any other size or
// fails its CRC is an error, and one archive is never inflated past kMaxTotalBytes in all: a zip
// bomb fails after a bounded amount of work and memory. An array's shape is known after
// inflating only its .npy header (at most 12 + 64 KiB bytes), so a caller can refuse a shape
// before the member is inflated.

#include "core/io/TensorSource.h"

#include <QHash>

#include <memory>

class QuaZip;

namespace attn {

class NpzReader : public TensorSource {
public:
    static constexpr qint64 kMaxTotalBytes = qint64(2) << 30;  // 2 GiB inflated per archive

    // Opens the archive and lists its members. Messages are reasons without the file name.
    static Result<std::unique_ptr<NpzReader>> open(const QString& path);
    ~NpzReader() override;

    QStringList tensorNames() const override;
    Result<Shape> tensorShape(const QString& name) override;
    Result<TensorArray> readTensor(const QString& name) override;
    Result<std::optional<int>> declaredNumHeads() override;
    QString numHeadsHint() const override;

    // The inflated bytes of the member `name` + ".npy", checked as described above.
    Result<QByteArray> readMember(const QString& name);

private:
    enum class Extent { Header, Whole };

    NpzReader();
    // Extent::Whole: the member's bytes, checked as described above. Extent::Header: its first
    // bytes, inflated until its .npy header has been checked against the declared size (the
    // whole member when it is shorter than a header can be); no CRC check, not counted against
    // kMaxTotalBytes (a header is read at most once per array: m_shapes).
    Result<QByteArray> inflateMember(const QString& name, Extent extent);

    std::unique_ptr<QuaZip> m_zip;
    QHash<QString, Shape> m_shapes;     // array name -> shape, for the headers probed so far
    QStringList m_names;                // array names, in archive order
    QHash<QString, QString> m_members;  // array name -> member file name
    qint64 m_inflated = 0;              // bytes inflated so far, against kMaxTotalBytes
};

}  // namespace attn
