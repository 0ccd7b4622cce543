// File › Export data of a long input (one head's weights kept, the others recomputed a block of
// queries at a time) as JSON: the same document, byte for byte, as the ordinary pass that keeps
// every head, written a chunk at a time; refused like CSV above the text limit; nothing left
// behind when a write fails.
#include "core/io/OutputChunk.h"
#include "core/pipeline/AttentionResult.h"
#include "core/report/JsonReport.h"
#include "tests/support/LongInput.h"
#include "tests/support/TestSuite.h"
#include "ui/export/DataExporter.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/resource.h>

using namespace attn;

namespace {

// 700 tokens, 4 heads: about 25 MB of JSON, several chunks.
std::optional<LongInputPasses> passesOf(bool causal, int kept_head, const QList<int>& padded_keys = {})
{
    RunSettings config;
    config.d_model = 16;
    config.num_heads = 4;
    config.causal = causal;
    config.padded_keys = padded_keys;
    return longInputPasses(config, 700, 53, kept_head);
}

// A device that takes `capacity` bytes and then fails every write, counting the writes asked of it.
class FillingDevice : public QIODevice {
public:
    explicit FillingDevice(qint64 capacity) : m_capacity(capacity) { open(QIODevice::WriteOnly | QIODevice::Unbuffered); }
    int writesAfterFull() const { return m_writes_after_full; }

protected:
    qint64 readData(char*, qint64) override { return -1; }
    qint64 writeData(const char*, qint64 length) override
    {
        if (m_written + length > m_capacity) {
            ++m_writes_after_full;
            return -1;
        }
        m_written += length;
        return length;
    }

private:
    qint64 m_capacity = 0;
    qint64 m_written = 0;
    int m_writes_after_full = 0;
};

// Files larger than `bytes` cannot be written by this process while it lives (RLIMIT_FSIZE, the
// write failing with EFBIG instead of a signal): a disk that fills up during an export.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        m_old_handler = std::signal(SIGXFSZ, SIG_IGN);
        getrlimit(RLIMIT_FSIZE, &m_old_limit);
        rlimit limit = m_old_limit;
        limit.rlim_cur = bytes;
        m_set = setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FileSizeLimit()
    {
        setrlimit(RLIMIT_FSIZE, &m_old_limit);
        std::signal(SIGXFSZ, m_old_handler);
    }
    bool isSet() const { return m_set; }

private:
    rlimit m_old_limit{};
    void (*m_old_handler)(int) = nullptr;
    bool m_set = false;
};

QByteArray contents(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class TestLongDataExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QStringList entries() const
    {
        return QDir(m_dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
    }

private slots:
    void cleanup()
    {
        for (const QString& name : entries())
            QFile::remove(m_dir.filePath(name));
    }

    // The long route's blocks of queries are the ordinary pass's (blocks of 2 x 2 cells: 64
    // queries), so its recomputed weights are the ordinary ones bit for bit, and so is the text.
    void jsonOfALongInputIsTheOrdinaryJson_data()
    {
        QTest::addColumn<bool>("causal");
        QTest::addColumn<int>("kept_head");
        QTest::addColumn<QList<int>>("padded_keys");
        QTest::addColumn<int>("trace_head");
        QTest::newRow("bidirectional, head 0 kept") << false << 0 << QList<int>{} << -1;
        QTest::newRow("causal, head 2 kept") << true << 2 << QList<int>{} << -1;
        QTest::newRow("padded keys, head 3 kept, head 1's trace") << false << 3 << QList<int>{0, 5, 699} << 1;
    }

    void jsonOfALongInputIsTheOrdinaryJson()
    {
        QFETCH(bool, causal);
        QFETCH(int, kept_head);
        QFETCH(QList<int>, padded_keys);
        QFETCH(int, trace_head);
        const std::optional<LongInputPasses> passes = passesOf(causal, kept_head, padded_keys);
        QVERIFY(passes);
        QVERIFY(passes->full.trace.keepsEveryHead());
        QVERIFY(!passes->blocked.trace.keepsEveryHead());
        QCOMPARE(passes->blocked.trace.kept_head, kept_head);

        const QString path = m_dir.filePath("long.json");
        const Status written = DataExporter::exportWeights(passes->blocked, path, trace_head);
        QVERIFY2(written.ok(), qPrintable(written.error()));
        const QByteArray file = contents(path);
        const QByteArray ordinary = JsonReport::build(passes->full, trace_head >= 0, trace_head);
        QVERIFY(file.size() > 2 * OutputChunk::kBytes);  // written in several chunks
        QCOMPARE(file.size(), ordinary.size());
        QVERIFY(file == ordinary);
        QVERIFY(file.size() <= DataExporter::jsonBytesAtMost(passes->blocked, trace_head));
        QVERIFY(ordinary.contains(padded_keys.isEmpty() ? "\"head_similarity\"" : "\"empty_rows\""));
        QCOMPARE(entries(), QStringList{"long.json"});
    }

    // As CSV: more than kMaxTextWeights weights (a gigabyte of text) are refused before anything
    // is written, with the size and the .npy alternative, whether the heads are kept or not.
    void jsonAboveTheTextLimitIsRefusedBeforeWriting_data()
    {
        QTest::addColumn<int>("kept_head");
        QTest::newRow("every head kept") << -1;
        QTest::newRow("one head kept") << 0;
    }

    void jsonAboveTheTextLimitIsRefusedBeforeWriting()
    {
        QFETCH(int, kept_head);
        const std::optional<LongInputPasses> passes = passesOf(false, 0);
        QVERIFY(passes);
        AttentionResult huge = passes->blocked;
        huge.trace.q = Matrix::Zero(8200, 1);  // 8,200 queries and keys of one head: 67.2 million weights
        huge.trace.k = Matrix::Zero(8200, 1);
        huge.trace.num_heads = 1;
        huge.trace.kept_head = kept_head;
        const QString path = m_dir.filePath("huge.json");
        QFile existing(path);
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.write("precious");
        existing.close();
        const Status refused = DataExporter::exportWeights(huge, path);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error(), path + QStringLiteral(": 67,240,000 weights would be about 1.0 GB of JSON text: "
                                                        "export .npy (269.0 MB) instead"));
        QCOMPARE(contents(path), QByteArray("precious"));
        QCOMPARE(entries(), QStringList{"huge.json"});
    }

    // A write that fails partway (here the process may not write more than 1 MB to a file, less
    // than a chunk) ends the export with the reason; the file it replaces is untouched and no
    // temporary file is left.
    void failedJsonExportLeavesNothingBehind()
    {
        const std::optional<LongInputPasses> passes = passesOf(true, 1);
        QVERIFY(passes);
        const QString path = m_dir.filePath("long.json");
        QFile existing(path);
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.write("precious");
        existing.close();
        Status status;
        {
            const FileSizeLimit limit(rlim_t(1) << 20);
            if (!limit.isSet())
                QSKIP("cannot limit the size of files written");
            status = DataExporter::exportWeights(passes->blocked, path);
        }
        QVERIFY(!status.ok());
        QVERIFY2(status.error().contains(QStringLiteral("cannot write")), qPrintable(status.error()));
        QCOMPARE(contents(path), QByteArray("precious"));
        QCOMPARE(entries(), QStringList{"long.json"});
        // The same export once the disk has room.
        QVERIFY(DataExporter::exportWeights(passes->blocked, path).ok());
        QVERIFY(contents(path) == JsonReport::build(passes->full));
    }

    // The document stops at the first write that fails: no more heads are recomputed for it.
    void jsonStopsAtTheFirstFailedWrite()
    {
        const std::optional<LongInputPasses> passes = passesOf(false, 0);
        QVERIFY(passes);
        FillingDevice device(2 * OutputChunk::kBytes);
        QVERIFY(!JsonReport::write(passes->blocked, device));
        QCOMPARE(device.writesAfterFull(), 1);
    }
};

REGISTER_TEST_SUITE(TestLongDataExport, QApplication)
#include "test_long_data_export.moc"
