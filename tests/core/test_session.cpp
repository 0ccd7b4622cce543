// Session files (core/io/Session, the table in core/io/SessionFields): what is written reads back
// as the same values, the command-line spelling of each type, and every refusal of an untrusted
// file as one line naming the key.

#include "core/io/Session.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;

class TestSession : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QByteArray withHeader(const QByteArray& fields) const
    {
        return QByteArray(R"({"format": "attention-lab-session", "version": 1)") +
               (fields.isEmpty() ? QByteArray() : QByteArray(", ") + fields) + "}";
    }

private slots:
    void everyRowIsWellFormed()
    {
        QStringList keys, options;
        for (const SessionField& row : SessionFields::rows()) {
            const QString key = QString::fromLatin1(row.key);
            QVERIFY2(!keys.contains(key), qPrintable(key));
            QVERIFY2(!options.contains(QLatin1String(row.option)), row.option);
            QVERIFY2(key != u"format" && key != u"version", qPrintable(key));
            keys << key;
            options << QString::fromLatin1(row.option);
            QCOMPARE(SessionFields::find(key), &row);
            QCOMPARE(SessionFields::findOption(QString::fromLatin1(row.option)), &row);
            if (row.type == SessionValueType::Choice)
                QVERIFY(row.choices);
            if (row.type == SessionValueType::IntegerList)
                QVERIFY(row.maximum_count >= 1);
        }
    }

    void writesAndReadsTheSameValues()
    {
        Session session;
        QVERIFY(session.set("sentence", "The cat sat").ok());
        QVERIFY(session.set("heads", "4").ok());
        QVERIFY(session.set("hide_tokens", "1,3").ok());
        QVERIFY(session.set("top_mass", "80.5").ok());
        QVERIFY(session.set("causal", "true").ok());
        QVERIFY(session.set("color_scale", "log").ok());
        QVERIFY(session.set("model", m_dir.path()).ok());
        const QString path = m_dir.filePath("state.json");
        QVERIFY(session.write(path).ok());
        auto read = Session::read(path);
        QVERIFY2(read.ok(), qPrintable(read.error()));
        QVERIFY(*read == session);
        QCOMPARE(read->text(u"heads"), QStringLiteral("4"));
        QCOMPARE(read->text(u"hide_tokens"), QStringLiteral("1,3"));
        QCOMPARE(read->text(u"top_mass"), QStringLiteral("80.5"));
        QCOMPARE(read->text(u"model"), QDir(m_dir.path()).absolutePath());
        // The file: the header, and each value with its JSON type.
        const QJsonObject object = QJsonDocument::fromJson(read->toJson()).object();
        QCOMPARE(object["format"].toString(), QStringLiteral("attention-lab-session"));
        QCOMPARE(object["version"].toInt(), 1);
        QCOMPARE(object["heads"].toInt(), 4);
        QVERIFY(object["causal"].toBool());
        QCOMPARE(object["hide_tokens"].toArray().size(), 2);
        // As command-line options, in the table's order, a flag alone.
        const QStringList arguments = read->arguments();
        QVERIFY(arguments.contains("--causal"));
        QCOMPARE(arguments.at(arguments.indexOf("--heads") + 1), QStringLiteral("4"));
        QCOMPARE(arguments.at(arguments.indexOf("--model") + 1), QDir(m_dir.path()).absolutePath());
        QVERIFY(arguments.indexOf("--model") < arguments.indexOf("--sentence"));
        const QStringList without_heads =
            read->arguments([](const SessionField& row) { return qstrcmp(row.key, "heads") == 0; });
        QVERIFY(!without_heads.contains("--heads"));
        QCOMPARE(without_heads.size(), arguments.size() - 2);
    }

    void relativePathsStartAtTheFile()
    {
        QVERIFY(QDir(m_dir.path()).mkpath("models/tiny"));
        auto session = Session::fromJson(withHeader(R"("model": "models/tiny")"), m_dir.path());
        QVERIFY2(session.ok(), qPrintable(session.error()));
        QCOMPARE(session->text(u"model"), QDir(m_dir.filePath("models/tiny")).absolutePath());
    }

    void falseFlagsAreAbsent()
    {
        auto session = Session::fromJson(withHeader(R"("causal": false, "layer": 2)"), m_dir.path());
        QVERIFY2(session.ok(), qPrintable(session.error()));
        QVERIFY(!session->has(u"causal"));
        QCOMPARE(session->arguments(), (QStringList{"--layer", "2"}));
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not JSON") << QByteArray("{\"format\": ") << "not valid JSON";
        QTest::newRow("truncated") << withHeader(R"("sentence": "The cat")").left(50) << "not valid JSON";
        QTest::newRow("an array") << QByteArray("[]") << "expected a JSON object";
        QTest::newRow("no format") << QByteArray(R"({"version": 1})") << "\"format\" is missing";
        QTest::newRow("other format") << QByteArray(R"({"format": "other", "version": 1})")
                                      << "not an attention-lab session (\"format\" is \"other\"";
        QTest::newRow("version 2") << QByteArray(R"({"format": "attention-lab-session", "version": 2})")
                                   << "session version 2 is not supported (this program reads version 1)";
        QTest::newRow("version as text") << QByteArray(R"({"format": "attention-lab-session", "version": "1"})")
                                         << "session version \"1\" is not supported";
        QTest::newRow("no version") << QByteArray(R"({"format": "attention-lab-session"})")
                                    << "session version missing";
        QTest::newRow("unknown key") << withHeader(R"("colour": "blue")") << "\"colour\": not a session key";
        QTest::newRow("layer as text") << withHeader(R"("layer": "2")")
                                       << "\"layer\": expected an integer from 0 to 1048576, got \"2\"";
        QTest::newRow("negative layer") << withHeader(R"("layer": -1)") << "\"layer\": expected an integer";
        QTest::newRow("fractional head") << withHeader(R"("head": 1.5)") << "\"head\": expected an integer";
        QTest::newRow("huge layer") << withHeader(R"("layer": 1e300)") << "\"layer\": expected an integer";
        QTest::newRow("sentence as number") << withHeader(R"("sentence": 3)") << "\"sentence\": expected a string";
        QTest::newRow("flag as text") << withHeader(R"("causal": "yes")") << "\"causal\": expected true or false";
        QTest::newRow("unknown colour scale")
            << withHeader(R"("color_scale": "rainbow")")
            << "\"color_scale\": expected one of linear, log, percentile, all-cells, per-row";
        QTest::newRow("empty list") << withHeader(R"("hide_tokens": [])") << "\"hide_tokens\": expected a list";
        QTest::newRow("list of text") << withHeader(R"("token_ids": [1, "2"])") << "\"token_ids\": expected a list";
        QTest::newRow("three heads to compare") << withHeader(R"("compare": [0, 1, 2])") << "got 3 entries";
        QTest::newRow("residual weight 2")
            << withHeader(R"("residual_weight": 2)") << "\"residual_weight\": expected a number from 0 to 1, got 2";
        QTest::newRow("top-k 0") << withHeader(R"("top_k": 0)") << "\"top_k\": expected an integer from 1 to 100";
        QTest::newRow("missing folder") << withHeader(R"("model": "no/such/folder")") << "\"model\": no such folder";
        QTest::newRow("a file as the folder") << withHeader(R"("model": "present.txt")") << "\"model\": no such folder";
        QTest::newRow("missing weights") << withHeader(R"("weights": "gone.safetensors")")
                                         << "\"weights\": no such file";
        QTest::newRow("empty path") << withHeader(R"("weights": "")") << "\"weights\": expected the path of a file";
        QTest::newRow("line break in a key") << withHeader(R"("a\nb": 1)") << "\"a\\nb\": not a session key";
    }

    void refusals()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        QFile present(m_dir.filePath("present.txt"));
        QVERIFY(present.open(QIODevice::WriteOnly));
        present.close();
        auto session = Session::fromJson(json, m_dir.path());
        QVERIFY(!session.ok());
        QVERIFY2(session.error().contains(expected), qPrintable(session.error()));
        QVERIFY(!session.error().contains(u'\n'));
    }

    void refusesAHugeFileBeforeParsing()
    {
        const QString path = m_dir.filePath("huge.json");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.resize(Session::kMaxFileBytes + 1));  // sparse: nothing to write
        file.close();
        auto session = Session::read(path);
        QVERIFY(!session.ok());
        QVERIFY2(session.error().contains("larger than 32 MiB"), qPrintable(session.error()));
    }

    void refusesAFolderAndAMissingFile()
    {
        QVERIFY(Session::read(m_dir.path()).error().contains("is a folder"));
        QVERIFY(Session::read(m_dir.filePath("none.json")).error().contains("cannot be read"));
    }

    void setChecksAsTheReaderDoes()
    {
        Session session;
        QVERIFY(session.set("layer", "-2").error().contains("\"layer\": expected an integer"));
        QVERIFY(session.set("nonsense", "1").error().contains("not a session key"));
        QVERIFY(session.set("weights", m_dir.filePath("none.safetensors")).error().contains("no such file"));
        QVERIFY(session.isEmpty());
    }

    void aFailedWriteLeavesNothing()
    {
        Session session;
        QVERIFY(session.set("layer", "1").ok());
        const QString path = m_dir.filePath("no/such/folder/state.json");
        QVERIFY(!session.write(path).ok());
        QVERIFY(!QFile::exists(path));
    }
};

REGISTER_TEST_SUITE(TestSession, QCoreApplication)
#include "test_session.moc"
