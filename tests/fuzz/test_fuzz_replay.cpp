// Replays one fuzz target (linked in beside this file) on its committed inputs: the seed corpus
// and the minimised inputs of past findings. The target aborts on any broken invariant, so each
// row passes only if the parser handled the input; under scripts/sanitize.sh ASan and UBSan
// watch every one of them.

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size);

namespace {

QStringList inputsIn(const QString& folder)
{
    QStringList files;
    QDirIterator it(folder, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    return files;
}

}  // namespace

class TestFuzzReplay : public QObject {
    Q_OBJECT

private slots:
    void theSeedCorpusIsThere()
    {
        QVERIFY2(inputsIn(QStringLiteral(FUZZ_CORPUS_DIR)).size() >= 3, FUZZ_CORPUS_DIR " holds too few seeds");
    }

    void replays_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString& folder : {QStringLiteral(FUZZ_CORPUS_DIR), QStringLiteral(FUZZ_REGRESSIONS_DIR)})
            for (const QString& path : inputsIn(folder))
                QTest::newRow(qPrintable(QDir(folder + "/..").relativeFilePath(path))) << path;
    }
    void replays()
    {
        QFETCH(QString, path);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QCOMPARE(LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.constData()), size_t(bytes.size())),
                 0);
    }
};

QTEST_GUILESS_MAIN(TestFuzzReplay)
#include "test_fuzz_replay.moc"
