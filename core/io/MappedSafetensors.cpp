#include "core/io/MappedSafetensors.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace attn {

Result<std::unique_ptr<MappedSafetensors>> MappedSafetensors::open(const QString& path)
{
    auto reader = SafetensorsReader::open(path);
    if (!reader)
        return Error{reader.error()};

    std::unique_ptr<MappedSafetensors> mapped(new MappedSafetensors);
    mapped->m_path = path;
    mapped->m_reader = std::move(reader).value();
    mapped->m_file.setFileName(path);
    if (!mapped->m_file.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot be opened (%1)").arg(mapped->m_file.errorString())};
    // The header was validated against the file's size then; the mapping must be of that file.
    const qint64 size = mapped->m_reader->fileSize();
    if (mapped->m_file.size() != size)
        return Error{QStringLiteral("the file changed while it was being opened (%1 bytes, then %2)")
                         .arg(size)
                         .arg(mapped->m_file.size())};
    const uchar* base = mapped->m_file.map(0, size);
    if (!base)
        return Error{QStringLiteral("cannot be mapped into memory (%1)").arg(mapped->m_file.errorString())};
    mapped->m_dataSection = base + mapped->m_reader->dataOffset();
    return mapped;
}

void MappedSafetensors::release(const TensorInfo& tensor) const
{
#if defined(__linux__) && defined(MADV_DONTNEED)
    // Only the pages wholly inside the tensor: its neighbours may still be in use.
    const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const auto first = reinterpret_cast<std::uintptr_t>(data(tensor));
    const auto begin = (first + page - 1) & ~(page - 1);
    const auto end = (first + std::uintptr_t(tensor.end - tensor.begin)) & ~(page - 1);
    if (end > begin)
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
#else
    Q_UNUSED(tensor);
#endif
}

}  // namespace attn
