// The published test cases of the reference parsers, carried over as files with the outcome each
// must have here (reference_cases/cases.tsv, written by reference_cases/make_cases.py): the
// header tests of huggingface/safetensors (tensor.rs and the Python tests) and numpy's
// test_format.py (magic, versions, header lengths, descr, shapes, byte order, Fortran order).

#include "core/io/NpyReader.h"
#include "core/io/SafetensorsReader.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QFile>
#include <QTest>

using namespace attn;
using namespace attn::testing;

namespace {

const QString kCases = sourcePath("tests/core/reference_cases/");

}  // namespace

class TestReferenceCases : public QObject {
    Q_OBJECT

private slots:
    void cases_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        QFile list(kCases + "cases.tsv");
        QVERIFY2(list.open(QIODevice::ReadOnly), "reference_cases/cases.tsv is missing");
        int count = 0;
        while (!list.atEnd()) {
            const QString line = QString::fromUtf8(list.readLine()).trimmed();
            if (line.isEmpty() || line.startsWith('#'))
                continue;
            const QStringList fields = line.split('\t');
            QVERIFY2(fields.size() == 3, qPrintable("malformed line: " + line));
            QTest::newRow(qPrintable(fields[0])) << fields[0] << fields[1];
            ++count;
        }
        QVERIFY2(count >= 100, "too few reference cases");
    }
    void cases()
    {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const QString path = kCases + file;
        QVERIFY2(QFile::exists(path), qPrintable(path + " is missing"));
        const bool ok = expected.startsWith("ok");
        const QString detail = ok ? expected.mid(3) : expected.mid(QStringLiteral("error: ").size());

        if (file.endsWith(".safetensors")) {
            auto reader = SafetensorsReader::open(path);
            if (!ok) {
                QVERIFY2(!reader.ok(), "accepted");
                QVERIFY2(reader.error().contains(detail), qPrintable(reader.error()));
                return;
            }
            QVERIFY2(reader.ok(), qPrintable(reader.error()));
            QCOMPARE(qsizetype((*reader)->tensors().size()), detail.toLongLong());
            for (const auto& tensor : (*reader)->tensors()) {
                auto shape = (*reader)->tensorShape(tensor.name);
                QVERIFY2(shape.ok(), qPrintable(shape.error()));
                QCOMPARE(*shape, tensor.shape);
            }
            return;
        }

        auto array = NpyReader::readFile(path);
        if (!ok) {
            QVERIFY2(!array.ok(), "accepted");
            QVERIFY2(array.error().contains(detail), qPrintable(array.error()));
            return;
        }
        QVERIFY2(array.ok(), qPrintable(array.error()));
        QCOMPARE(shapeString(array->shape), detail);
        // The values are 0, 1, 2, ... in C order whatever the byte order and layout in the file.
        for (Eigen::Index i = 0; i < array->values.size(); ++i)
            QCOMPARE(array->values.data()[i], float(i));
    }
};

REGISTER_TEST_SUITE(TestReferenceCases, QCoreApplication)
#include "test_reference_cases.moc"
