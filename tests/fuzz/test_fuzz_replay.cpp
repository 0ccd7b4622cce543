// Replays each fuzz target on its committed inputs: the seed corpus and the minimised inputs of
// past findings, as one suite per target, test_fuzz_replay_<parser>. The targets are compiled
// into this executable with their entry point renamed (tests/fuzz/CMakeLists.txt). A target
// aborts on any broken invariant, so each row passes only if the parser handled the input; under
// scripts/sanitize.sh ASan and UBSan watch every one of them.

#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>

#include <cstdint>

#define ATTENTION_FUZZ_TARGETS(X)                                                                                    \
    X(safetensors)                                                                                                   \
    X(npy)                                                                                                           \
    X(npz) X(json_weights) X(weight_file) X(model_config) X(tokenizer_json) X(vocab_json) X(merges_txt) X(vocab_txt) \
        X(model_index) X(session)

#define ATTENTION_DECLARE_FUZZ_TARGET(parser) extern "C" int fuzzReplay_##parser(const std::uint8_t* data, size_t size);
ATTENTION_FUZZ_TARGETS(ATTENTION_DECLARE_FUZZ_TARGET)

using FuzzTarget = int (*)(const std::uint8_t* data, size_t size);

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

public:
    TestFuzzReplay(const char* target, FuzzTarget run)
        : m_corpus(attn::testing::sourcePath("tests/fuzz/corpus/") + QLatin1String(target)),
          m_regressions(attn::testing::sourcePath("tests/fuzz/regressions/") + QLatin1String(target)),
          m_run(run)
    {
    }

private slots:
    void theSeedCorpusIsThere()
    {
        QVERIFY2(inputsIn(m_corpus).size() >= 3, qPrintable(m_corpus + " holds too few seeds"));
    }

    void replays_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString& folder : {m_corpus, m_regressions})
            for (const QString& path : inputsIn(folder))
                QTest::newRow(qPrintable(QDir(folder + "/..").relativeFilePath(path))) << path;
    }
    void replays()
    {
        QFETCH(QString, path);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QCOMPARE(m_run(reinterpret_cast<const std::uint8_t*>(bytes.constData()), size_t(bytes.size())), 0);
    }

private:
    QString m_corpus;
    QString m_regressions;
    FuzzTarget m_run;
};

#define ATTENTION_REGISTER_FUZZ_REPLAY(parser)                                                            \
    attn::testing::registerTestSuite("test_fuzz_replay_" #parser, [](int argc, char** argv) {             \
        return attn::testing::runTestSuite<TestFuzzReplay, QCoreApplication>(argc, argv, "fuzz_" #parser, \
                                                                             &fuzzReplay_##parser);       \
    });
static const bool registered_fuzz_replays = [] {
    ATTENTION_FUZZ_TARGETS(ATTENTION_REGISTER_FUZZ_REPLAY)
    return true;
}();
#include "test_fuzz_replay.moc"
