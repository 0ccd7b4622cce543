// .npy reading and writing: numpy's own output, every dtype and layout the reader accepts, and
// every way a file can be malformed.

#include "core/io/NpyReader.h"
#include "core/io/NpyWriter.h"
#include "core/weights/WeightFile.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WeightFileWriters.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <cmath>
#include <limits>

using namespace attn;
using namespace attn::testing;

namespace {

const QString kToyInput = sourcePath("resources/examples/toy-4d-input.npy");

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

Matrix toyInput()
{
    Matrix x(3, 4);  // (tokens, dims)
    x << 1, 0, 1, 0, 0, 2, 0, 2, 1, 1, 1, 1;
    return x;
}

QByteArray npyInt(const QByteArray& descr, const QString& shape, const QByteArray& data)
{
    return npy(descr, shape, data);
}

QByteArray bigEndian32(const std::vector<float>& values)
{
    QByteArray out(qsizetype(values.size() * 4), '\0');
    for (size_t i = 0; i < values.size(); ++i)
        qToBigEndian<float>(values[i], out.data() + i * 4);
    return out;
}

}  // namespace

class TestNpy : public QObject {
    Q_OBJECT

private slots:
    // --- .npy written by numpy, read and written here ---
    void readsNumpysOwnFile()
    {
        auto array = NpyReader::readFile(kToyInput);
        QVERIFY2(array.ok(), qPrintable(array.error()));
        QCOMPARE(array->shape, (Shape{3, 4}));
        QCOMPARE(array->values, toyInput());
        auto matrix = NpyReader::readMatrixFile(kToyInput);
        QVERIFY2(matrix.ok(), qPrintable(matrix.error()));
        QCOMPARE(*matrix, toyInput());
    }

    void writerMatchesNumpyByteForByte()
    {
        // toy-4d-input.npy was written by numpy.save (resources/examples/make_toy_input.py).
        const QByteArray numpy = readAll(kToyInput);
        QVERIFY(!numpy.isEmpty());
        QCOMPARE(NpyWriter::encode(toyInput()), numpy);
    }

    void writerRoundTrips_data()
    {
        QTest::addColumn<Shape>("shape");
        QTest::newRow("2-D") << Shape{3, 5};
        QTest::newRow("3-D heads x T x T") << Shape{2, 3, 3};
        QTest::newRow("1-D") << Shape{7};
        QTest::newRow("0-d") << Shape{};
        QTest::newRow("empty") << Shape{0, 4};
        QTest::newRow("long first axis") << Shape{123456, 1};
    }
    void writerRoundTrips()
    {
        QFETCH(Shape, shape);
        std::vector<float> values(size_t(*elementCount(shape)));
        for (size_t i = 0; i < values.size(); ++i)
            values[i] = float(i) * 0.25f - 3.0f;
        auto bytes = NpyWriter::encode(values, shape);
        QVERIFY2(bytes.ok(), qPrintable(bytes.error()));
        QCOMPARE(bytes->indexOf('\n') % 64, 63);  // numpy aligns the data to 64 bytes
        auto array = NpyReader::read(*bytes);
        QVERIFY2(array.ok(), qPrintable(array.error()));
        QCOMPARE(array->shape, shape);
        QCOMPARE(std::vector<float>(array->values.data(), array->values.data() + array->values.size()), values);
    }

    void writerStacksMatricesAsThreeD()
    {
        std::vector<Matrix> heads = {Matrix::Constant(2, 3, 1.5f), Matrix::Constant(2, 3, -2.0f)};
        heads[1](1, 2) = 9.0f;
        auto bytes = NpyWriter::encode(heads);
        QVERIFY(bytes.ok());
        QVERIFY(bytes->contains("'shape': (2, 2, 3), "));
        auto array = NpyReader::read(*bytes);
        QVERIFY(array.ok());
        QCOMPARE(array->shape, (Shape{2, 2, 3}));
        QCOMPARE(array->values(0, 0), 1.5f);  // head 0, (0, 0)
        QCOMPARE(array->values(1, 5), 9.0f);  // head 1, (1, 2)
        QCOMPARE(array->values(1, 0), -2.0f);

        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QVERIFY(NpyWriter::write(buffer, *bytes).ok());
        QCOMPARE(buffer.data(), *bytes);

        heads.push_back(Matrix::Zero(3, 2));
        auto mismatched = NpyWriter::encode(heads);
        QVERIFY(!mismatched.ok());
        QVERIFY2(mismatched.error().contains("matrix 2 is 3 x 2"), qPrintable(mismatched.error()));
        QVERIFY(!NpyWriter::encode(std::vector<float>(5), Shape{2, 3}).ok());
    }

    void writesFilesAtomically()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("attention.npy");
        const QByteArray bytes = NpyWriter::encode(toyInput());
        QVERIFY(NpyWriter::writeFile(path, bytes).ok());
        QCOMPARE(readAll(path), bytes);

        QVERIFY(writeFile(dir.filePath("plain"), "x"));
        for (const QString& bad : {dir.filePath("missing/attention.npy"), dir.filePath("plain/attention.npy")}) {
            const Status status = NpyWriter::writeFile(bad, bytes);
            QVERIFY(!status.ok());
            QVERIFY2(status.error().startsWith("attention.npy: cannot be written"), qPrintable(status.error()));
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot),
                 (QStringList{"attention.npy", "plain"}));
    }

    // --- dtypes, byte orders, layouts, versions ---
    void readsEveryFloatType_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<std::vector<float>>("expected");
        const std::vector<float> values = {1.0f, -2.5f, 0.375f, 65504.0f};
        QTest::newRow("<f4") << npy("<f4", "(2, 2)", f32Bytes(values)) << values;
        QTest::newRow(">f4 big-endian") << npy(">f4", "(2, 2)", bigEndian32(values)) << values;
        QTest::newRow("=f4 native") << npy("=f4", "(2, 2)", f32Bytes(values)) << values;
        QTest::newRow("<f2") << npy("<f2", "(2, 2)", u16Bytes({0x3C00, 0xC100, 0x3600, 0x7BFF})) << values;
        QByteArray big16 = u16Bytes({0x3C00, 0xC100, 0x3600, 0x7BFF});
        for (qsizetype i = 0; i < big16.size(); i += 2)
            std::swap(big16[i], big16[i + 1]);
        QTest::newRow(">f2 big-endian") << npy(">f2", "(2, 2)", big16) << values;
        QTest::newRow("<f8") << npy("<f8", "(2, 2)", f64Bytes({1.0, -2.5, 0.375, 65504.0})) << values;
        QByteArray big64 = f64Bytes({1.0, -2.5, 0.375, 65504.0});
        for (qsizetype i = 0; i < big64.size(); i += 8)
            std::reverse(big64.begin() + i, big64.begin() + i + 8);
        QTest::newRow(">f8 big-endian") << npy(">f8", "(2, 2)", big64) << values;
        // Fortran order: the columns are stored one after the other.
        QTest::newRow("fortran 2x2") << npy("<f4", "(2, 2)", f32Bytes({1.0f, 0.375f, -2.5f, 65504.0f}), true) << values;
        QTest::newRow("fortran big-endian f8") << [] {
            QByteArray b = f64Bytes({1.0, 0.375, -2.5, 65504.0});
            for (qsizetype i = 0; i < b.size(); i += 8)
                std::reverse(b.begin() + i, b.begin() + i + 8);
            return npy(">f8", "(2, 2)", b, true);
        }() << values;
        QTest::newRow("version 2.0") << npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                                               f32Bytes(values), 2)
                                     << values;
        QTest::newRow("version 3.0") << npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                                               f32Bytes(values), 3)
                                     << values;
        QTest::newRow("keys in another order")
            << npyRaw("{'shape': (2, 2), 'fortran_order': False, 'descr': '<f4'}", f32Bytes(values)) << values;
    }
    void readsEveryFloatType()
    {
        QFETCH(QByteArray, file);
        QFETCH(std::vector<float>, expected);
        auto array = NpyReader::read(file);
        QVERIFY2(array.ok(), qPrintable(array.error()));
        QCOMPARE(array->shape, (Shape{2, 2}));
        QCOMPARE(std::vector<float>(array->values.data(), array->values.data() + 4), expected);
    }

    void readsFortranOrderInThreeDimensions()
    {
        // shape (2, 3, 4): C-order value at [i][j][k] is 100i + 10j + k; Fortran stores i fastest.
        std::vector<float> fortran;
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < 3; ++j)
                for (int i = 0; i < 2; ++i)
                    fortran.push_back(float(100 * i + 10 * j + k));
        auto array = NpyReader::read(npy("<f4", "(2, 3, 4)", f32Bytes(fortran), true));
        QVERIFY2(array.ok(), qPrintable(array.error()));
        QCOMPARE(array->values.rows(), 2);
        QCOMPARE(array->values.cols(), 12);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 4; ++k)
                    QCOMPARE(array->values(i, j * 4 + k), float(100 * i + 10 * j + k));
    }

    void readsScalarsAndVectors()
    {
        auto scalar = NpyReader::read(npy("<f8", "()", f64Bytes({0.5})));
        QVERIFY(scalar.ok());
        QCOMPARE(scalar->shape, Shape{});
        QCOMPARE(scalar->values.rows(), 1);
        QCOMPARE(scalar->values(0, 0), 0.5f);
        auto vector = NpyReader::read(npy("<f4", "(3,)", f32Bytes({1, 2, 3})));
        QVERIFY(vector.ok());
        QCOMPARE(vector->values.rows(), 1);
        QCOMPARE(vector->values.cols(), 3);
        QCOMPARE(vector->values(0, 2), 3.0f);
    }

    void readsIntegers_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("0-d <i8") << npyInt("<i8", "()", i64Bytes({8})) << qint64(8);
        QTest::newRow("(1,) <i4") << npyInt("<i4", "(1,)", QByteArray("\x0c\0\0\0", 4)) << qint64(12);
        QTest::newRow("0-d >i4") << npyInt(">i4", "()", QByteArray("\0\0\0\x05", 4)) << qint64(5);
        QTest::newRow("|u1") << npyInt("|u1", "()", QByteArray("\x10", 1)) << qint64(16);
        QTest::newRow("<i2 negative") << npyInt("<i2", "()", QByteArray("\xfe\xff", 2)) << qint64(-2);
        QTest::newRow("integral float") << npyInt("<f8", "(1, 1)", f64Bytes({4.0})) << qint64(4);
    }
    void readsIntegers()
    {
        QFETCH(QByteArray, file);
        QFETCH(qint64, expected);
        auto value = NpyReader::readInteger(file);
        QVERIFY2(value.ok(), qPrintable(value.error()));
        QCOMPARE(qint64(*value), expected);
    }

    void refusesNonIntegerValues()
    {
        auto fraction = NpyReader::readInteger(npy("<f8", "()", f64Bytes({2.5})));
        QVERIFY(!fraction.ok() && fraction.error().contains("not an integer"));
        auto two = NpyReader::readInteger(npy("<i8", "(2,)", i64Bytes({2, 3})));
        QVERIFY(!two.ok() && two.error().contains("single value"));
        auto boolean = NpyReader::readInteger(npy("|b1", "()", QByteArray("\x01", 1)));
        QVERIFY(!boolean.ok() && boolean.error().contains("boolean"));
    }

    // Zero rows: a valid empty array (UBSan once saw a null pointer passed to memcpy here).
    void zeroRowsReadAsAnEmptyMatrix()
    {
        for (const QByteArray descr : {"<f4", ">f4", "<f2", "<f8"}) {
            auto array = NpyReader::read(npy(descr, "(0, 4)", {}));
            QVERIFY2(array.ok(), qPrintable(array.error()));
            QCOMPARE(array->values.rows(), 0);
            QCOMPARE(array->values.cols(), 4);
        }
    }

    // The element limit comes from the header, before the file's data is mapped or allocated: a
    // consistent 4 TiB array (a sparse file) is refused at once.
    void refusesHugeArraysFromTheHeader()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("huge.npy");
        const QByteArray header = npy("<f4", "(1048576, 1048576)", {});
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(header) != header.size() ||
            !file.resize(header.size() + (qint64(4) << 40)))
            QSKIP("this file system has no sparse files");
        file.close();
        auto array = NpyReader::readFile(path);
        QVERIFY(!array.ok());
        QCOMPARE(array.error(), QString("huge.npy: shape (1048576, 1048576) has 1099511627776 elements, over the "
                                        "limit of 1073741824 for one array (4 GiB of float32)"));
        auto matrix = NpyReader::readMatrixFile(path);
        QVERIFY(!matrix.ok() && matrix.error().contains("over the limit"));
        // In memory too, before anything is allocated.
        auto claimed = NpyReader::read(npy("<f8", "(2147483648,)", {}));
        QVERIFY(!claimed.ok() && claimed.error().contains("truncated"));
    }

    // --- malformed .npy ---
    void rejectsMalformedNpy_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("reason");
        const QByteArray data = f32Bytes({1, 2, 3, 4});
        QTest::newRow("bad magic") << QByteArray("\x93NUMPZ\x01\x00\x10\x00{}") + QByteArray(60, ' ') << "magic";
        QTest::newRow("not npy at all") << QByteArray("hello") << "magic";
        QByteArray v4 = npy("<f4", "(2, 2)", data);
        v4[6] = 4;
        QTest::newRow("version 4.0") << v4 << "version 4.0";
        QByteArray minor = npy("<f4", "(2, 2)", data);
        minor[7] = 1;
        QTest::newRow("version 1.1") << minor << "version 1.1";
        QTest::newRow("int weights") << npy("<i4", "(2, 2)", data) << "not a floating-point";
        QTest::newRow("complex") << npy("<c8", "(2,)", data) << "unsupported dtype '<c8'";
        QTest::newRow("float128") << npy("<f16", "(1,)", QByteArray(16, '\0')) << "unsupported dtype '<f16'";
        QTest::newRow("object") << npy("|O", "(2,)", QByteArray(16, '\0')) << "unsupported dtype '|O'";
        QTest::newRow("structured") << npyRaw("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }",
                                              data)
                                    << "structured";
        QTest::newRow("truncated") << npy("<f4", "(2, 2)", data.left(12)) << "truncated";
        QTest::newRow("trailing data") << npy("<f4", "(2, 2)", data + "junk") << "trailing";
        QTest::newRow("absurd shape") << npy("<f4", "(1000000000, 1000000000)", data) << "truncated";
        QTest::newRow("overflowing shape") << npy("<f4", "(4294967296, 4294967296, 4294967296)", data) << "overflows";
        QTest::newRow("negative shape") << npy("<f4", "(-2, 2)", data) << "negative";
        QTest::newRow("shape not a tuple") << npy("<f4", "[2, 2]", data) << "not a tuple";
        QTest::newRow("shape of text") << npy("<f4", "('a',)", data) << "not a non-negative integer";
        QTest::newRow("huge shape entry") << npy("<f4", "(99999999999999999999,)", data) << "64 bits";
        QTest::newRow("missing key") << npyRaw("{'descr': '<f4', 'shape': (4,), }", data) << "lacks";
        QTest::newRow("extra key") << npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}", data)
                                   << "unexpected or repeated key 'x'";
        QTest::newRow("repeated key") << npyRaw(
                                             "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,)}",
                                             data)
                                      << "repeated key 'descr'";
        QTest::newRow("not a dict") << npyRaw("(1, 2)", data) << "not a dict";
        QTest::newRow("unterminated string")
            << npyRaw("{'descr: '<f4', 'fortran_order': False, 'shape': (4,)}", data) << "not a valid dict";
        QTest::newRow("fortran_order not bool")
            << npyRaw("{'descr': '<f4', 'fortran_order': 0, 'shape': (4,)}", data) << "True or False";
        QByteArray longHeader = npy("<f4", "(2, 2)", data);
        longHeader[8] = '\xff';
        longHeader[9] = '\xff';
        QTest::newRow("header longer than file") << longHeader << "ends inside the .npy header";
        QByteArray hugeV2 = npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data, 2);
        hugeV2[8] = '\0';
        hugeV2[9] = '\0';
        hugeV2[10] = '\0';
        hugeV2[11] = '\x70';  // claims a 1.8 GB header
        QTest::newRow("header claims 1.8 GB") << hugeV2 << "limit";
    }
    void rejectsMalformedNpy()
    {
        QFETCH(QByteArray, file);
        QFETCH(QString, reason);
        auto array = NpyReader::read(file);
        QVERIFY(!array.ok());
        QVERIFY2(array.error().contains(reason), qPrintable(array.error()));
    }

    void fileErrorsNameTheFile_data()
    {
        QTest::addColumn<QByteArray>("content");  // empty: no file is written
        QTest::addColumn<bool>("directory");
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing") << QByteArray() << false << "no such file";
        QTest::newRow("directory") << QByteArray() << true << "is a directory";
        QTest::newRow("empty file") << QByteArray("x") << false << "not a .npy file";
        QTest::newRow("truncated") << npy("<f4", "(3, 4)", f32Bytes({1, 2})) << false << "truncated";
        QTest::newRow("1-D for a matrix")
            << npy("<f4", "(4,)", f32Bytes({1, 2, 3, 4})) << false << "expected a 2-D array";
        QTest::newRow("no rows") << npy("<f4", "(0, 4)", {}) << false << "at least one row";
        QTest::newRow("NaN") << npy("<f4", "(1, 2)", f32Bytes({1, std::numeric_limits<float>::quiet_NaN()})) << false
                             << "NaN";
        QTest::newRow("Inf from float64") << npy("<f8", "(1, 1)", f64Bytes({1e300})) << false << "infinite";
    }
    void fileErrorsNameTheFile()
    {
        QFETCH(QByteArray, content);
        QFETCH(bool, directory);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = dir.filePath("input.npy");
        if (directory)
            QVERIFY(QDir(dir.path()).mkdir("input.npy"));
        else if (!content.isEmpty())
            QVERIFY(writeFile(path, content));
        auto matrix = NpyReader::readMatrixFile(path);
        QVERIFY(!matrix.ok());
        QVERIFY2(matrix.error().startsWith("input.npy: "), qPrintable(matrix.error()));
        QVERIFY2(matrix.error().contains(reason), qPrintable(matrix.error()));
    }
};

REGISTER_TEST_SUITE(TestNpy, QCoreApplication)
#include "test_npy.moc"
