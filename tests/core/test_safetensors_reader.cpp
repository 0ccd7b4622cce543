// The safetensors reader: its listing of tensors and metadata, unknown dtypes skipped until used,
// limits applied from the header before any data is read, empty tensors, reusable header checks,
// and refusals kept to one line.

#include "tests/core/SafetensorsTestFiles.h"
#include "tests/support/TestSuite.h"

#include <limits>

using namespace attn;
using namespace attn::testing;

class TestSafetensorsReader : public QObject {
    Q_OBJECT

private slots:
    void readerListsTensorsAndMetadata()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("m.safetensors");
        QVERIFY(writeFile(path, safetensors({{"b", "F32", {2}, f32Bytes({1, 2})}, {"a", "I8", {3}, "xyz"}},
                                            QJsonObject{{"num_heads", "2"}, {"format", "pt"}})));
        auto reader = SafetensorsReader::open(path);
        QVERIFY2(reader.ok(), qPrintable(reader.error()));
        QCOMPARE((*reader)->tensorNames(), (QStringList{"b", "a"}));  // data order
        QCOMPARE((*reader)->metadata().value("format"), QString("pt"));
        QCOMPARE((*reader)->find("b")->end, 8);
        QCOMPARE((*reader)->find("a")->begin, 8);
        QCOMPARE((*reader)->find("a")->shape, Shape{3});
        auto b = (*reader)->readTensor("b");
        QVERIFY(b.ok());
        QCOMPARE(b->values(0, 1), 2.0f);
        auto a = (*reader)->readTensor("a");
        QVERIFY(!a.ok() && a.error().contains("dtype I8"));
    }

    // An extra tensor of a dtype this program does not know (a newer one of the format) is skipped
    // while it is not needed; used, it is refused by name.
    void unknownDtypeIsRefusedOnlyWhereUsed()
    {
        const QByteArray in12x4 = f32Bytes(std::vector<float>(48, 0.25f));
        auto unused = loadBytes(safetensors(
            {{"in_proj_weight", "F32", {12, 4}, in12x4}, {"quant.scale", "F8_E4M3FNUZ", {3}, "abc"}}, kTwoHeads));
        QVERIFY2(unused.ok(), qPrintable(unused.error()));
        QCOMPARE(unused->weights.dModel(), 4);

        auto used =
            loadBytes(safetensors({{"in_proj_weight", "F8_E4M3FNUZ", {12, 4}, QByteArray(48, '\x10')}}, kTwoHeads));
        QVERIFY(!used.ok());
        QCOMPARE(used.error(), QString("model.safetensors: tensor 'in_proj_weight' has unknown dtype 'F8_E4M3FNUZ'"));
    }

    // A shape that the limits refuse is refused from the header: the 3 GiB of a consistent
    // [3, 2^28] F32 tensor are never read.
    void limitsApplyBeforeReading_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<qint64>("data_bytes");
        QTest::addColumn<QString>("reason");
        QTest::newRow("input_dim 2^28, 3 GiB")
            << header({entry("in_proj_weight", "F32", "[3, 268435456]", 0, qint64(3) << 30)}) << (qint64(3) << 30)
            << "tensor 'in_proj_weight' has shape (3, 268435456): input_dim 268435456 is above the limit of 65536";
        QTest::newRow("q_proj claims 4 TiB")
            << header({entry("q_proj.weight", "F32", "[1048576, 1048576]", 0, qint64(4) << 40),
                       entry("k_proj.weight", "F32", "[1, 1]", qint64(4) << 40, (qint64(4) << 40) + 4),
                       entry("v_proj.weight", "F32", "[1, 1]", (qint64(4) << 40) + 4, (qint64(4) << 40) + 8)})
            << (qint64(4) << 40) + 8
            << "tensor 'k_proj.weight' has shape (1, 1) but 'q_proj.weight' has (1048576, 1048576)";
        QTest::newRow("q/k/v claim 4 TiB each")
            << header({entry("q_proj.weight", "F32", "[1048576, 1048576]", 0, qint64(4) << 40),
                       entry("k_proj.weight", "F32", "[1048576, 1048576]", qint64(4) << 40, qint64(8) << 40),
                       entry("v_proj.weight", "F32", "[1048576, 1048576]", qint64(8) << 40, qint64(12) << 40)})
            << (qint64(12) << 40)
            << "tensor 'q_proj.weight' has shape (1048576, 1048576): d_model 1048576 is above the limit of 65536";
        QTest::newRow("gpt2 output 2^30 wide")
            << header({entry("h.0.attn.c_attn.weight", "F32", "[1, 3]", 0, 12),
                       entry("h.0.attn.c_proj.weight", "F32", "[1, 1073741824]", 12, 12 + (qint64(4) << 30))})
            << 12 + (qint64(4) << 30) << "output_dim 1073741824 is above the limit of 65536";
        QTest::newRow("parameters over 2^30")
            << header({entry("in_proj_weight", "F32", "[196608, 65536]", 0, qint64(196608) * 65536 * 4)})
            << qint64(196608) * 65536 * 4
            << "input_dim 65536, d_model 65536 and output_dim 65536 make 17179869184 parameters, over the limit of "
               "1073741824";
    }
    void limitsApplyBeforeReading()
    {
        QFETCH(QByteArray, header);
        QFETCH(qint64, data_bytes);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = sparseFile(dir, header, data_bytes);
        if (path.isEmpty())
            QSKIP("this file system has no sparse files");
        auto loaded = WeightFile::load(path, {0, 1});
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().contains(reason), qPrintable(loaded.error()));
    }

    // Every array read through a TensorSource is limited to 2^30 elements before anything is
    // allocated, whoever asks for it.
    void readerRefusesAFourTebibyteTensor()
    {
        QTemporaryDir dir;
        const QString path =
            sparseFile(dir, header({entry("w", "F32", "[1048576, 1048576]", 0, qint64(4) << 40)}), qint64(4) << 40);
        if (path.isEmpty())
            QSKIP("this file system has no sparse files");
        auto reader = SafetensorsReader::open(path);
        QVERIFY2(reader.ok(), qPrintable(reader.error()));
        auto tensor = (*reader)->readTensor("w");
        QVERIFY(!tensor.ok());
        QCOMPARE(tensor.error(), QString("tensor 'w': shape (1048576, 1048576) has 1099511627776 elements, over the "
                                         "limit of 1073741824 for one array (4 GiB of float32)"));
    }

    // Zero rows: a valid empty array (UBSan once saw a null pointer passed to memcpy here).
    void zeroRowTensorIsEmpty()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("empty.safetensors");
        QVERIFY(writeFile(path, safetensors({{"w", "F32", {0, 8}, {}}, {"h", "F16", {0}, {}}})));
        auto reader = SafetensorsReader::open(path);
        QVERIFY2(reader.ok(), qPrintable(reader.error()));
        for (const QString name : {"w", "h"}) {
            auto tensor = (*reader)->readTensor(name);
            QVERIFY2(tensor.ok(), qPrintable(tensor.error()));
            QCOMPARE(tensor->values.size(), 0);
        }
        QCOMPARE((*reader)->readTensor("w")->values.cols(), 8);
    }

    // A header entry read by hand, as another reader of the format would call it.
    void headerChecksAreReusable()
    {
        auto length = SafetensorsHeader::headerLength(QByteArray("\x10\0\0\0\0\0\0\0", 8), 100);
        QVERIFY2(length.ok(), qPrintable(length.error()));
        QCOMPARE(*length, 16);
        auto parsed = SafetensorsHeader::parse(R"( {"b": {"dtype": "F16", "shape": [2], "data_offsets": [4, 8]},
            "a": {"dtype": "BF16", "shape": [1, 2], "data_offsets": [0, 4], "extra": [1]}} )",
                                               8);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->tensors().size(), size_t(2));
        QCOMPARE(parsed->tensors()[0].name, QString("a"));  // in data order
        QCOMPARE(parsed->find("b")->begin, 4);
        QCOMPARE(parsed->find("a")->format, FloatFormat::BF16);
        QVERIFY(!SafetensorsHeader::headerLength(QByteArray(8, '\xff'), 100).ok());
    }

    // A name with a line break stays inside the one line of the refusal.
    void messagesStayOneLine()
    {
        auto loaded = loadBytes(safetensors({{"wte\nerror: fake", "F32", {1}, f32Bytes({1})}}));
        QVERIFY(!loaded.ok());
        QVERIFY2(!loaded.error().contains('\n'), qPrintable(loaded.error()));
        QVERIFY2(loaded.error().contains("wte\\x0aerror: fake"), qPrintable(loaded.error()));
    }
};

REGISTER_TEST_SUITE(TestSafetensorsReader, QCoreApplication)
#include "test_safetensors_reader.moc"
