// Reading the small files of a model folder within a limit (core/base/BoundedRead.h), and the
// text of those files in error messages (core/base/MessageText.h).

#include "core/base/BoundedRead.h"
#include "core/base/MessageText.h"
#include "core/model/ModelFolder.h"
#include "core/text/TokenizerFiles.h"
#include "tests/support/TestSuite.h"

#include <QBuffer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;

class TestBoundedRead : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString& name, const QByteArray& bytes)
    {
        QFile file(m_dir.filePath(name));
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
            return {};
        return file.fileName();
    }

private slots:
    void readsUpToTheLimit()
    {
        QBuffer buffer;
        buffer.setData(QByteArray(1000, 'x'));
        QVERIFY(buffer.open(QIODevice::ReadOnly));
        const BoundedRead exact = readAtMost(buffer, 1000);
        QVERIFY(!exact.over_limit && !exact.failed);
        QCOMPARE(exact.bytes, QByteArray(1000, 'x'));
        QVERIFY(buffer.seek(0));
        const BoundedRead over = readAtMost(buffer, 999);
        QVERIFY(over.over_limit);
        QVERIFY(over.bytes.isEmpty());
        QVERIFY(buffer.seek(0));
        QCOMPARE(readAtMost(buffer, 0).over_limit, true);
    }

    // A 64 MiB limit costs a small file its own size, not 64 MiB up front (QIODevice::read(limit + 1)
    // allocated the whole limit for every tokenizer file and config.json).
    void memoryFollowsTheFileNotTheLimit()
    {
        const QString path = write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n");
        QVERIFY(!path.isEmpty());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const BoundedRead read = readAtMost(file, qint64(1) << 30);
        QCOMPARE(read.bytes.size(), 31);
        QVERIFY2(read.bytes.capacity() < 4096, qPrintable(QString::number(read.bytes.capacity())));

        auto tokenizer_file = TokenizerFiles::read(m_dir.path(), "vocab.txt");
        QVERIFY(tokenizer_file);
        QVERIFY2(tokenizer_file->capacity() < 4096, qPrintable(QString::number(tokenizer_file->capacity())));
        auto folder_file = readFolderFile(path, ModelFolder::kMaxJsonBytes);
        QVERIFY(folder_file);
        QVERIFY2(folder_file->capacity() < 4096, qPrintable(QString::number(folder_file->capacity())));
    }

    void fileTextIsOnePrintableLineInMessages()
    {
        QCOMPARE(escapedForMessage(QString::fromUtf8("a\"b\\c\nd\re\tf")), QStringLiteral("a\\\"b\\\\c\\nd\\re\\tf"));
        QCOMPARE(escapedForMessage(QString(QChar(0)) + QChar(0x1b) + QChar(0x7f) + QChar(0x85) + QChar(0x2028)),
                 QStringLiteral("\\u0000\\u001b\\u007f\\u0085\\u2028"));
        QCOMPARE(escapedForMessage(QString::fromUtf8("Ġhéllo 中文 😀")), QString::fromUtf8("Ġhéllo 中文 😀"));
        QCOMPARE(quotedForMessage("abc"), QStringLiteral("\"abc\""));
        QCOMPARE(quotedForMessage(QString(50, u'x')), u'"' + QString(40, u'x') + QStringLiteral("…\""));
        // Never cut inside a surrogate pair.
        const QString emoji = QString::fromUtf8("😀");
        QCOMPARE(quotedForMessage(QString(39, u'x') + emoji + emoji), u'"' + QString(39, u'x') + QStringLiteral("…\""));
    }
};

REGISTER_TEST_SUITE(TestBoundedRead, QCoreApplication)
#include "test_bounded_read.moc"
