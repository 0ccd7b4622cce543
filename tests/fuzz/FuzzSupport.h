#pragma once

// What the fuzz targets share: the input as bytes or as a file, and invariants that must hold
// whatever the input (a broken one aborts, which libFuzzer reports as a crash with its input).

#include "core/io/TensorSource.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace attn::fuzz {

inline QByteArray bytesOf(const std::uint8_t* data, size_t size)
{
    return QByteArray(reinterpret_cast<const char*>(data), qsizetype(size));
}

// The input files of this process, removed when it exits.
struct InputFiles {
    QStringList paths;
    ~InputFiles()
    {
        for (const QString& path : paths)
            QFile::remove(path);
    }
};

// The input written to a file of this process named "input<suffix>", in /dev/shm when there is
// one (no disk traffic per run), as the program would open it.
inline QString writeInputFile(const QByteArray& bytes, const QString& suffix)
{
    static const QString folder =
        QDir(QStringLiteral("/dev/shm")).exists() ? QStringLiteral("/dev/shm") : QDir::tempPath();
    static InputFiles files;
    const QString path =
        QStringLiteral("%1/attention-fuzz-%2-input%3").arg(folder).arg(QCoreApplication::applicationPid()).arg(suffix);
    if (!files.paths.contains(path))
        files.paths << path;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size()) {
        std::fprintf(stderr, "fuzz: cannot write %s\n", qPrintable(path));
        std::abort();
    }
    return path;
}

[[noreturn]] inline void broken(const char* condition, const char* file, int line)
{
    std::fprintf(stderr, "fuzz: invariant broken at %s:%d: %s\n", file, line, condition);
    std::abort();
}

#define FUZZ_CHECK(condition) ((condition) ? void() : ::attn::fuzz::broken(#condition, __FILE__, __LINE__))

// A refusal says something.
inline void checkMessage(const QString& message)
{
    FUZZ_CHECK(!message.isEmpty());
}

// A refusal the program prints (WeightFile::load, NpyReader::readMatrixFile) is one line, whatever
// names the file holds.
inline void checkPrintedMessage(const QString& message)
{
    checkMessage(message);
    for (QChar c : message)
        FUZZ_CHECK(c.unicode() >= 0x20 && c.unicode() != 0x7f);
}

// An array that was read has the element count and matrix layout its shape says.
inline void checkArray(const TensorArray& array)
{
    const auto count = elementCount(array.shape);
    FUZZ_CHECK(count.has_value() && *count <= TensorSource::kMaxTensorElements);
    FUZZ_CHECK(array.values.size() == *count);
    const auto [rows, cols] = TensorArray::matrixDims(array.shape);
    FUZZ_CHECK(array.values.rows() == rows && array.values.cols() == cols);
}

// Every array of a source: its shape from the headers, then its values, which must agree.
inline void readEveryTensor(TensorSource& source)
{
    for (const QString& name : source.tensorNames()) {
        auto shape = source.tensorShape(name);
        auto array = source.readTensor(name);
        if (!array)
            continue;
        FUZZ_CHECK(shape.ok());
        FUZZ_CHECK(array->shape == *shape);
        checkArray(*array);
    }
    (void)source.declaredNumHeads();
}

}  // namespace attn::fuzz
