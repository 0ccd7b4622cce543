// .npz archives: every naming scheme, num_heads as a member, and every way a zip can be damaged
// or lie about its sizes (zip bombs fail fast without inflating what they claim).

#include "core/io/NpzReader.h"
#include "core/weights/WeightFile.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WeightFileWriters.h"

#include <QFile>
#include <QHash>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;
using namespace attn::testing;

namespace {

// 16 MiB of zeros behind a .npy header, deflated (about 16 KiB): built once, used by several cases.
const QByteArray& deflatedBomb(const QByteArray& shape)
{
    static QHash<QByteArray, QByteArray> cache;
    if (!cache.contains(shape))
        cache.insert(shape, rawDeflate(npy("<f4", QString::fromLatin1(shape), QByteArray(16 << 20, '\0'))));
    return cache[shape];
}

}  // namespace

class TestNpz : public QObject {
    Q_OBJECT

private slots:
    void readsNpzWeights_data()
    {
        QTest::addColumn<bool>("compress");
        QTest::newRow("deflated (savez_compressed)") << true;
        QTest::newRow("stored (savez)") << false;
    }
    void readsNpzWeights()
    {
        QFETCH(bool, compress);
        QTemporaryDir dir;
        const QString path = dir.filePath("weights.npz");
        const SampleWeights w = SampleWeights::make(6, 4, 5);
        QVERIFY(writeNpz(path, projTensors(w, "encoder.layer.0.attn.", "o_proj"),
                         {{"num_heads.npy", npy("<i8", "()", i64Bytes({2}))}, {"notes.txt", "ignored"}}, compress));
        auto loaded = WeightFile::load(path);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(loaded->scheme, QString("q_proj/k_proj/v_proj"));
        QCOMPARE(loaded->tensor_prefix, QString("encoder.layer.0.attn."));
        QCOMPARE(loaded->weights.num_heads, 2);
        QCOMPARE(Matrix(loaded->weights.wq()), w.wq);
        QCOMPARE(Matrix(loaded->weights.wv()), w.wv);
        QCOMPARE(loaded->weights.out_proj, w.wo);
        QCOMPARE(loaded->weights.out_bias, w.bo);
        QCOMPARE(RowVector(loaded->weights.in_bias.segment(4, 4)), w.bk);
    }

    void npzNumHeads_data()
    {
        QTest::addColumn<QByteArray>("member");  // num_heads.npy, or empty for none
        QTest::addColumn<int>("override");
        QTest::addColumn<int>("expected");  // 0: an error containing `reason`
        QTest::addColumn<QString>("reason");
        QTest::newRow("0-d int64") << npy("<i8", "()", i64Bytes({4})) << 0 << 4 << "";
        QTest::newRow("1-element int32") << npy("<i4", "(1,)", QByteArray("\x02\0\0\0", 4)) << 0 << 2 << "";
        QTest::newRow("override wins") << npy("<i8", "()", i64Bytes({4})) << 1 << 1 << "";
        QTest::newRow("override without key") << QByteArray() << 2 << 2 << "";
        QTest::newRow("no key") << QByteArray() << 0 << 0 << "no integer member 'num_heads'";
        QTest::newRow("zero") << npy("<i8", "()", i64Bytes({0})) << 0 << 0 << "num_heads 0 is not a positive integer";
        QTest::newRow("fraction") << npy("<f8", "()", f64Bytes({1.5})) << 0 << 0 << "not an integer";
        QTest::newRow("not dividing d_model")
            << npy("<i8", "()", i64Bytes({3})) << 0 << 0 << "not divisible by 3 heads";
    }
    void npzNumHeads()
    {
        QFETCH(QByteArray, member);
        QFETCH(int, override);
        QFETCH(int, expected);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = dir.filePath("mha.npz");
        std::vector<ZipMember> extra;
        if (!member.isEmpty())
            extra.push_back({"num_heads.npy", member});
        QVERIFY(writeNpz(path, mhaTensors(SampleWeights::make(4, 4, 4)), extra));
        auto loaded = WeightFile::load(path, {0, override});
        if (expected > 0) {
            QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
            QCOMPARE(loaded->weights.num_heads, expected);
        } else {
            QVERIFY(!loaded.ok());
            QVERIFY2(loaded.error().startsWith("mha.npz: ") && loaded.error().contains(reason),
                     qPrintable(loaded.error()));
        }
    }

    void rejectsBadNpz_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("reason");
        QTest::newRow("not a zip") << "not-zip"
                                   << "not a zip archive";
        QTest::newRow("a text file") << "text"
                                     << "not a zip archive: an .npz is a zip of .npy members";
        QTest::newRow("zip cut short") << "cut-short"
                                       << "the directory at its end is missing or damaged";
        QTest::newRow("empty zip") << "empty"
                                   << "no attention weights found: expected";
        QTest::newRow("claims small, inflates big (bomb)") << "bomb-small-claim"
                                                           << "inflates past its declared size of 320 bytes";
        QTest::newRow("bomb with a matching header") << "bomb-header"
                                                     << "needs 16777344 bytes but the member declares 1048576";
        QTest::newRow("claims 3 GiB") << "claims-huge"
                                      << "over the 2147483648-byte limit";
        QTest::newRow("claims more than it holds") << "claims-more"
                                                   << "inflates to 320 bytes but declares 4416";
        QTest::newRow("npy header disagrees with size") << "header-lies"
                                                        << "needs";
        QTest::newRow("member not npy") << "not-npy"
                                        << "magic";
        QTest::newRow("integer weights") << "int-weights"
                                         << "not a floating-point type";
        QTest::newRow("stored member, bad CRC") << "bad-crc"
                                                << "CRC mismatch";
        QTest::newRow("damaged deflate data") << "damaged"
                                              << "deflate";
        QTest::newRow("bzip2 member") << "bzip2"
                                      << "compression method 12";
    }
    void rejectsBadNpz()
    {
        QFETCH(QString, kind);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.npz");
        const QByteArray good = npy("<f4", "(12, 4)", QByteArray(12 * 4 * 4, '\0'));
        if (kind == "not-zip") {
            QVERIFY(writeFile(path, "PK\x03\x04 this is not really a zip archive"));
        } else if (kind == "text") {
            QVERIFY(writeFile(path, "in_proj_weight = [[1, 2], [3, 4]]\n"));
        } else if (kind == "cut-short") {
            QVERIFY(writeZip(path, {{"in_proj_weight.npy", good}}));
            QFile file(path);
            QVERIFY(file.resize(file.size() / 2));
        } else if (kind == "empty") {
            QVERIFY(writeZip(path, {}));
        } else if (kind == "bomb-small-claim") {
            // Inflates to 16 MiB but declares the size (and CRC) of a valid 12 x 4 array.
            QVERIFY(writeZipLying(path, "in_proj_weight.npy", deflatedBomb("(12, 4)"), 8, crc32Of(good),
                                  quint64(good.size())));
        } else if (kind == "bomb-header") {
            // A bomb declaring 1 MiB whose own .npy header admits 16 MiB: refused after the header.
            QVERIFY(writeZipLying(path, "in_proj_weight.npy", deflatedBomb("(4194304,)"), 8, 0, quint64(1) << 20));
        } else if (kind == "claims-huge") {
            QVERIFY(writeZipLying(path, "in_proj_weight.npy", rawDeflate(good), 8, crc32Of(good), quint64(3) << 30));
        } else if (kind == "claims-more") {
            QVERIFY(writeZipLying(path, "in_proj_weight.npy", rawDeflate(good), 8, crc32Of(good),
                                  quint64(good.size()) + 4096));
        } else if (kind == "header-lies") {
            // A 1 MiB member whose .npy header describes 12 x 4 floats: refused at the first chunk.
            const QByteArray padded = good + QByteArray((1 << 20) - good.size(), '\0');
            QVERIFY(writeZipLying(path, "in_proj_weight.npy", rawDeflate(padded), 8, crc32Of(padded),
                                  quint64(padded.size())));
        } else if (kind == "not-npy") {
            QVERIFY(writeZip(path, {{"in_proj_weight.npy", "plain text"}}));
        } else if (kind == "int-weights") {
            QVERIFY(writeZip(path, {{"in_proj_weight.npy", npy("<i4", "(12, 4)", QByteArray(12 * 4 * 4, '\0'))}}));
        } else if (kind == "damaged") {
            QByteArray deflated = rawDeflate(good);
            deflated.truncate(deflated.size() / 2);
            QVERIFY(writeZipLying(path, "in_proj_weight.npy", deflated + QByteArray(8, '\xff'), 8, crc32Of(good),
                                  quint64(good.size())));
        } else if (kind == "bzip2") {
            QVERIFY(writeZipLying(path, "in_proj_weight.npy", good, 12, crc32Of(good), quint64(good.size())));
        } else if (kind == "bad-crc") {
            QVERIFY(writeZipLying(path, "in_proj_weight.npy", good, 0, crc32Of(good) ^ 1, quint64(good.size())));
        }
        auto loaded = WeightFile::load(path, {0, 1});
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().startsWith("bad.npz: "), qPrintable(loaded.error()));
        QVERIFY2(loaded.error().contains(reason), qPrintable(loaded.error()));
        QVERIFY2(!loaded.error().contains("zip error") && !loaded.error().contains("-1000"),
                 qPrintable(loaded.error()));  // words, not minizip's codes
    }

    // A member's shape meets the limits as soon as its .npy header has been inflated: a consistent
    // member declaring the full 2 GiB (in_proj_weight (3, 178956960) float32) is never inflated
    // further. The deflate stream here holds only the header and 1 MiB, so inflating the member
    // would end in "truncated" instead.
    void shapeLimitsApplyBeforeInflating()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("big.npz");
        const QByteArray start = npy("<f4", "(3, 178956960)", QByteArray(1 << 20, '\0'));
        QCOMPARE(start.indexOf('\n') + 1 + qint64(3) * 178956960 * 4, NpzReader::kMaxTotalBytes);
        QVERIFY(writeZipLying(path, "in_proj_weight.npy", rawDeflate(start), 8, 0, quint64(NpzReader::kMaxTotalBytes)));
        auto loaded = WeightFile::load(path, {0, 1});
        QVERIFY(!loaded.ok());
        QCOMPARE(loaded.error(), QString("big.npz: tensor 'in_proj_weight' has shape (3, 178956960): input_dim "
                                         "178956960 is above the limit of 65536"));
    }

    void numHeadsIsOneValueBeforeInflating()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("heads.npz");
        QVERIFY(writeNpz(path, mhaTensors(SampleWeights::make(4, 4, 4))));
        const QByteArray start = npy("<i8", "(100000000,)", QByteArray(1 << 20, '\0'));
        const QString lying = dir.filePath("heads-member.npz");
        QVERIFY(writeZipLying(lying, "num_heads.npy", rawDeflate(start), 8, 0,
                              quint64(start.indexOf('\n') + 1) + 800000000));
        auto reader = NpzReader::open(lying);
        QVERIFY(reader.ok());
        auto heads = (*reader)->declaredNumHeads();
        QVERIFY(!heads.ok());
        QCOMPARE(heads.error(), QString("member 'num_heads.npy': expected a single value, got shape (100000000,)"));
    }

    void shapeComesFromTheHeaderAlone()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("w.npz");
        QVERIFY(writeNpz(path, mhaTensors(SampleWeights::make(6, 4, 5))));
        auto reader = NpzReader::open(path);
        QVERIFY(reader.ok());
        auto shape = (*reader)->tensorShape("in_proj_weight");
        QVERIFY2(shape.ok(), qPrintable(shape.error()));
        QCOMPARE(*shape, (Shape{12, 6}));
        QCOMPARE(*(*reader)->tensorShape("out_proj.weight"), (Shape{5, 4}));
        QVERIFY(!(*reader)->tensorShape("absent").ok());
    }

    void bombIsNotInflated()
    {
        // Inflating stops one byte past the declared 320 bytes: the 16 MiB are never produced.
        QTemporaryDir dir;
        const QString path = dir.filePath("bomb.npz");
        const QByteArray good = npy("<f4", "(12, 4)", QByteArray(12 * 4 * 4, '\0'));
        QVERIFY(writeZipLying(path, "w.npy", deflatedBomb("(12, 4)"), 8, crc32Of(good), quint64(good.size())));
        auto reader = NpzReader::open(path);
        QVERIFY(reader.ok());
        QCOMPARE((*reader)->tensorNames(), QStringList{"w"});
        auto member = (*reader)->readMember("w");
        QVERIFY(!member.ok());
        QCOMPARE(member.error(), QString("member 'w.npy': inflates past its declared size of 320 bytes"));
    }
};

REGISTER_TEST_SUITE(TestNpz, QCoreApplication)
#include "test_npz.moc"
