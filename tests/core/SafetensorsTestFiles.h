#pragma once

// What the safetensors tests share: files written from bytes and loaded, header entries written by
// hand for files that lie, and the comparison of loaded weights with the values written.

#include "core/io/FloatConversion.h"
#include "core/io/SafetensorsReader.h"
#include "core/weights/WeightFile.h"
#include "core/weights/WeightNaming.h"
#include "tests/support/WeightFileWriters.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

namespace attn::testing {

inline const QJsonObject kTwoHeads{{"num_heads", "2"}};

inline Result<LoadedWeights> loadBytes(const QByteArray& bytes, const WeightFileOptions& options = {},
                                       const QString& name = "model.safetensors")
{
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    if (!writeFile(path, bytes))
        return Error{"test could not write the file"};
    return WeightFile::load(path, options);
}

inline void expectSame(const AttentionWeights& got, const SampleWeights& want, bool biases = true, bool output = true)
{
    QCOMPARE(Matrix(got.wq()), want.wq);
    QCOMPARE(Matrix(got.wk()), want.wk);
    QCOMPARE(Matrix(got.wv()), want.wv);
    if (biases) {
        RowVector b(want.bq.size() * 3);
        b << want.bq, want.bk, want.bv;
        QCOMPARE(got.in_bias, b);
    } else {
        QCOMPARE(got.in_bias.size(), 0);
    }
    if (output) {
        QCOMPARE(got.out_proj, want.wo);
        QCOMPARE(got.out_bias, want.bo);
    } else {
        QVERIFY(!got.hasOutputProjection());
    }
}

// A header entry written by hand, for files that lie.
inline QByteArray entry(const QString& name, const QString& dtype, const QString& shape, qint64 begin, qint64 end)
{
    return QStringLiteral("\"%1\": {\"dtype\": \"%2\", \"shape\": %3, \"data_offsets\": [%4, %5]}")
        .arg(name, dtype, shape)
        .arg(begin)
        .arg(end)
        .toUtf8();
}

inline QByteArray header(const QList<QByteArray>& entries, const QByteArray& metadata = "{\"num_heads\": \"1\"}")
{
    QByteArray h = "{\"__metadata__\": " + metadata;
    for (const QByteArray& e : entries)
        h += ", " + e;
    return h + "}";
}

// A file of `header` whose data section is `data_bytes` long but holds no data: a sparse file, so
// a consistent file of gigabytes costs nothing on disk. Empty when the file system cannot.
inline QString sparseFile(const QTemporaryDir& dir, const QByteArray& header, qint64 data_bytes)
{
    const QString path = dir.filePath("huge.safetensors");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(safetensorsRaw(header, {})) != 8 + header.size() ||
        !file.resize(8 + header.size() + data_bytes))
        return {};
    return path;
}

}  // namespace attn::testing
