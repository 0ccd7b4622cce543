// Opening a model folder for the command line and the window (core/model/ModelSession): one
// policy for both. The model must load; the tokenizer is needed for text only, so a folder whose
// tokenizer files are missing or broken still opens for token ids, and text is then refused with
// the tokenizer's own fault. The folders are fixtures of tests/fixtures/models/, copied and
// spoiled one file at a time.
#include "core/model/ModelSession.h"

#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace attn;
using namespace attn::testing;

namespace {

std::vector<int> expectedIds(const QJsonObject& expected)
{
    std::vector<int> ids;
    for (const QJsonValue& id : expected["token_ids"].toArray())
        ids.push_back(id.toInt());
    return ids;
}

QStringList expectedTokens(const QJsonObject& expected)
{
    QStringList tokens;
    for (const QJsonValue& token : expected["tokens"].toArray())
        tokens << token.toString();
    return tokens;
}

}  // namespace

class TestModelSession : public QObject {
    Q_OBJECT

private slots:
    // A whole folder: text through its tokenizer as transformers does, ids spelled by it, labels
    // as the views show them, the head's positions, and a cached pass equal to the plain one.
    void goodFolderReadsTextAndIds()
    {
        const QString dir = modelFixture("gpt2-tiny");
        const QJsonObject expected = readJsonObject(dir + "/expected.json");
        auto session = ModelSession::open(dir);
        QVERIFY2(session.ok(), qPrintable(session.error()));
        const ModelSession& s = **session;
        QCOMPARE(s.dir(), QFileInfo(dir).absoluteFilePath());
        QVERIFY(s.tokenizer() != nullptr);
        QVERIFY(s.tokenizerProblem().isEmpty());
        QVERIFY(!s.tokenizerBroken());
        QVERIFY(s.byteLevelTokens());

        const auto ids = s.encode(expected["sentence"].toString());
        QVERIFY2(ids.ok(), qPrintable(ids.error()));
        QCOMPARE(*ids, expectedIds(expected));
        const QStringList tokens = s.tokenTexts(*ids);
        QCOMPARE(tokens, expectedTokens(expected));
        QCOMPARE(s.tokenLabels({"Att", "ention", "Ġisn"}), (QStringList{"Att", "ention", "\u2423isn"}));
        QCOMPARE(s.predictedPositions(*ids).size(), ids->size());  // causal: after every token

        const auto empty = s.encode(QString());
        QVERIFY(!empty.ok());
        QCOMPARE(empty.error(), QStringLiteral("the sentence gives no tokens"));

        auto plain = s.model().forward(*ids, 1);
        auto cached = s.forwardWithCache(*ids, 1);
        QVERIFY(plain.ok() && cached.ok());
        QCOMPARE((*cached)->token_ids, plain->token_ids);
        QCOMPARE((*cached)->last_hidden_state, plain->last_hidden_state);  // a first pass: nothing reused
    }

    // A folder without tokenizer files takes ids; text is refused with "no tokenizer files".
    void folderWithoutTokenizerTakesIds()
    {
        const QString dir = modelFixture("llama-tiny");
        const QJsonObject expected = readJsonObject(dir + "/expected.json");
        auto session = ModelSession::open(dir);
        QVERIFY2(session.ok(), qPrintable(session.error()));
        const ModelSession& s = **session;
        QVERIFY(s.tokenizer() == nullptr);
        QVERIFY(!s.tokenizerBroken());  // nothing to repair: the folder has none
        QVERIFY2(s.tokenizerProblem().startsWith("no tokenizer files"), qPrintable(s.tokenizerProblem()));
        const std::vector<int> ids = expectedIds(expected);
        QCOMPARE(s.tokenTexts({1, 15}), (QStringList{"1", "15"}));  // spelled by their ids
        QVERIFY(s.forwardWithCache(ids, 0).ok());
        const auto text = s.encode(QStringLiteral("The cat sat"));
        QVERIFY(!text.ok());
        QCOMPARE(text.error(), s.tokenizerProblem());
    }

    // Tokenizer files that cannot be read: the folder opens for ids (spelled by their ids, as
    // without a tokenizer), says what is wrong, and refuses text with exactly that.
    void brokenTokenizerOpensForIds_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("contents");  // empty: the file removed
        QTest::newRow("malformed vocab.json") << "gpt2-tiny"
                                              << "vocab.json" << QByteArray("{\"a\": 0,");
        QTest::newRow("merges.txt without vocab.json") << "gpt2-tiny"
                                                       << "vocab.json" << QByteArray();
        QTest::newRow("malformed tokenizer.json") << "distilbert-tiny"
                                                  << "tokenizer.json" << QByteArray("[]");
    }
    void brokenTokenizerOpensForIds()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, file);
        QFETCH(QByteArray, contents);
        QTemporaryDir folder;
        QVERIFY(copyFolder(modelFixture(fixture), folder.path()));
        const QString path = folder.filePath(file);
        QVERIFY(contents.isEmpty() ? QFile::remove(path) : writeFile(path, contents));

        auto session = ModelSession::open(folder.path());
        QVERIFY2(session.ok(), qPrintable(session.error()));
        const ModelSession& s = **session;
        QVERIFY(s.tokenizer() == nullptr);
        QVERIFY(s.tokenizerBroken());
        const QString problem = s.tokenizerProblem();
        const QString named = contents.isEmpty() ? QStringLiteral("merges.txt") : file;
        QVERIFY2(problem.contains(named), qPrintable(problem));
        QVERIFY(!s.byteLevelTokens());

        const std::vector<int> ids = expectedIds(readJsonObject(modelFixture(fixture) + "/expected.json"));
        QCOMPARE(s.tokenTexts({ids[0]}), QStringList{QString::number(ids[0])});
        QVERIFY(s.forwardWithCache(ids, 0).ok());
        const auto text = s.encode(QStringLiteral("hello"));
        QVERIFY(!text.ok());
        QCOMPARE(text.error(), problem);
    }

    // What the model itself needs refuses the folder, naming the file; the folder's name is the caller's to add.
    void missingOrBrokenModelIsRefused()
    {
        QTemporaryDir root;
        const auto missing = ModelSession::open(root.filePath("nothing"));
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error().contains("no such folder"), qPrintable(missing.error()));

        QVERIFY(copyFolder(modelFixture("gpt2-tiny"), root.path()));
        QVERIFY(QFile::remove(root.filePath("config.json")));
        const auto no_config = ModelSession::open(root.path());
        QVERIFY(!no_config.ok());
        QVERIFY2(no_config.error().contains("config.json"), qPrintable(no_config.error()));
    }
};

REGISTER_TEST_SUITE(TestModelSession, QCoreApplication)
#include "test_model_session.moc"
