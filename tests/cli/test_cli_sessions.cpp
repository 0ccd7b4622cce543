// --save-session and --session through the real executable (docs/sessions.md): a session replayed
// gives the same JSON and the same PNG bytes as the command that saved it, options given beside
// --session replace the file's, and every refusal of a broken or foreign file is one `error:` line
// with no output file.
#include "tests/support/ModelFolders.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace attn::testing;

namespace {

QByteArray contentsOf(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString gpt2()
{
    return modelFixture("gpt2-tiny");
}

}  // namespace

class TestCliSessions : public QObject {
    Q_OBJECT

private slots:
    void replayGivesTheSameOutputs_data();
    void replayGivesTheSameOutputs();
    void savingAloneWritesOnlyTheSession();
    void optionsGivenReplaceTheFiles();
    void refusals_data();
    void refusals();
    void aFailedRunSavesNoSession();
};

void TestCliSessions::replayGivesTheSameOutputs_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("random weights") << QStringList{"--sentence", "the cat sat on the mat",
                                                   "--heads",    "4",
                                                   "--d-model",  "32",
                                                   "--seed",     "7",
                                                   "--causal",   "--view",
                                                   "head",       "--head",
                                                   "2",          "--color-scale",
                                                   "log",        "--hide-tokens",
                                                   "1",          "--top-mass",
                                                   "90",         "--scale",
                                                   "none"};
    QTest::newRow("weight file") << QStringList{"--weights",  sourcePath("tests/fixtures/weights/mha_e8_h2.npz"),
                                                "--sentence", "a b c",
                                                "--view",     "compare",
                                                "--compare",  "1,0",
                                                "--reduce",   "mean"};
    QTest::newRow("model") << QStringList{"--model",
                                          gpt2(),
                                          "--sentence",
                                          "The cat sat on the mat",
                                          "--layer",
                                          "1",
                                          "--view",
                                          "head",
                                          "--head",
                                          "1",
                                          "--color-scale",
                                          "percentile",
                                          "--metric",
                                          "0",
                                          "--logit-lens",
                                          "--top-k",
                                          "3",
                                          "--attention-kind",
                                          "norms",
                                          "--residual-weight",
                                          "0.25"};
    QTest::newRow("model, token ids") << QStringList{"--model", gpt2(),  "--token-ids",   "1,2,3,1,2",
                                                     "--view",  "model", "--hide-tokens", "0"};
    QTest::newRow("model, ablation") << QStringList{"--model",    gpt2(), "--token-ids", "1,2,3,1,2", "--ablate",
                                                    "1:0,0:1",    "--ablation", "mean", "--metric", "3,4",
                                                    "--ablation-scan"};
    QTest::newRow("model, patching") << QStringList{"--model",      gpt2(),       "--token-ids",      "1,2,3,1,2",
                                                    "--metric",     "3,4",        "--patch-from-ids", "1,2,5,1,2",
                                                    "--patch-site", "heads"};
    QTest::newRow("model, sampling") << QStringList{"--model",       gpt2(), "--token-ids",     "1,2,3",
                                                    "--generate",    "4",    "--temperature",   "0.7",
                                                    "--sample-seed", "11",   "--sample-top-k", "20",
                                                    "--sample-top-p", "0.9"};
}

void TestCliSessions::replayGivesTheSameOutputs()
{
    QFETCH(QStringList, arguments);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString session = dir.filePath("state.json");
    const ProgramRun original = runProgram(arguments + QStringList{"--json", dir.filePath("a.json"), "--export",
                                                                   dir.filePath("a.png"), "--save-session", session});
    QVERIFY2(original.exit_code == 0, original.err.constData());
    const QJsonObject saved = QJsonDocument::fromJson(contentsOf(session)).object();
    QCOMPARE(saved["format"].toString(), QStringLiteral("attention-lab-session"));
    QCOMPARE(saved["version"].toInt(), 1);

    const ProgramRun replayed =
        runProgram({"--session", session, "--json", dir.filePath("b.json"), "--export", dir.filePath("b.png")});
    QVERIFY2(replayed.exit_code == 0, replayed.err.constData());
    QVERIFY(!contentsOf(dir.filePath("a.json")).isEmpty());
    QCOMPARE(contentsOf(dir.filePath("b.json")), contentsOf(dir.filePath("a.json")));
    QVERIFY(!contentsOf(dir.filePath("a.png")).isEmpty());
    QVERIFY(contentsOf(dir.filePath("b.png")) == contentsOf(dir.filePath("a.png")));

    // With --json alone the file's picture options stay out (they are refused without --export).
    const ProgramRun json_only = runProgram({"--session", session, "--json", dir.filePath("c.json")});
    QVERIFY2(json_only.exit_code == 0, json_only.err.constData());
    QCOMPARE(contentsOf(dir.filePath("c.json")), contentsOf(dir.filePath("a.json")));

    // Saved again from the session: the same file.
    const ProgramRun resaved = runProgram({"--session", session, "--save-session", dir.filePath("again.json")});
    QVERIFY2(resaved.exit_code == 0, resaved.err.constData());
    QCOMPARE(contentsOf(dir.filePath("again.json")), contentsOf(session));
}

void TestCliSessions::savingAloneWritesOnlyTheSession()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString session = dir.filePath("state.json");
    const ProgramRun run = runProgram({"--model", gpt2(), "--layer", "1", "--save-session", session});
    QVERIFY2(run.exit_code == 0, run.err.constData());
    QVERIFY(run.out.isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"state.json"});
    const QJsonObject saved = QJsonDocument::fromJson(contentsOf(session)).object();
    QCOMPARE(saved["model"].toString(), QDir(gpt2()).absolutePath());
    QCOMPARE(saved["layer"].toInt(), 1);
}

void TestCliSessions::optionsGivenReplaceTheFiles()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString session = dir.filePath("state.json");
    QVERIFY(runProgram({"--model", gpt2(), "--sentence", "The cat sat", "--layer", "0", "--save-session", session})
                .exit_code == 0);
    // --layer and --token-ids (which replaces the file's --sentence) given beside the session.
    const ProgramRun direct = runProgram({"--model", gpt2(), "--token-ids", "5,6,7", "--layer", "1", "--json", "-"});
    const ProgramRun replaced =
        runProgram({"--session", session, "--token-ids", "5,6,7", "--layer", "1", "--json", "-"});
    QVERIFY2(direct.exit_code == 0, direct.err.constData());
    QVERIFY2(replaced.exit_code == 0, replaced.err.constData());
    QCOMPARE(replaced.out, direct.out);
}

void TestCliSessions::refusals_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("expected");
    const QByteArray header = R"({"format": "attention-lab-session", "version": 1)";
    const QByteArray model = QByteArray(R"(, "model": ")") + QDir(gpt2()).absolutePath().toUtf8() + "\"";
    QTest::newRow("bad JSON") << QByteArray("{format") << QStringList{} << "not valid JSON";
    QTest::newRow("truncated") << (header + model + "}").left(60) << QStringList{} << "not valid JSON";
    QTest::newRow("empty file") << QByteArray() << QStringList{} << "not valid JSON";
    QTest::newRow("wrong format") << QByteArray(R"({"format": "bertviz", "version": 1})") << QStringList{}
                                  << "not an attention-lab session";
    QTest::newRow("wrong version") << QByteArray(R"({"format": "attention-lab-session", "version": 2})")
                                   << QStringList{} << "session version 2 is not supported";
    QTest::newRow("wrong type") << header + R"(, "layer": "one"})" << QStringList{} << "\"layer\": expected an integer";
    QTest::newRow("unknown key") << header + R"(, "layers": 1})" << QStringList{} << "\"layers\": not a session key";
    QTest::newRow("out-of-range layer") << header + model + R"(, "layer": 7})" << QStringList{}
                                        << "--layer 7: out of range";
    QTest::newRow("missing folder") << header + R"(, "model": "/no/such/model"})" << QStringList{}
                                    << "\"model\": no such folder: /no/such/model";
    QTest::newRow("missing weights") << header + R"(, "weights": "gone.npz"})" << QStringList{}
                                     << "\"weights\": no such file";
    QTest::newRow("bad value for the option") << header + R"(, "scale": "tiny"})" << QStringList{} << "--scale";
    QTest::newRow("huge file") << QByteArray() << QStringList{} << "larger than 32 MiB";
    QTest::newRow("no such session") << QByteArray() << QStringList{"missing"} << "cannot be read";
}

void TestCliSessions::refusals()
{
    QFETCH(QByteArray, contents);
    QFETCH(QStringList, extra);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString session = dir.filePath("state.json");
    if (QString::fromLatin1(QTest::currentDataTag()) == u"huge file") {
        QFile file(session);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.resize((qint64(32) << 20) + 1));
    } else if (extra.contains("missing")) {
        session = dir.filePath("missing.json");
    } else {
        QVERIFY(writeFile(session, contents));
    }
    const QString json = dir.filePath("out.json");
    const QString png = dir.filePath("out.png");
    const ProgramRun run = runProgram({"--session", session, "--json", json, "--export", png});
    const QString problem = refusalProblem(run, expected);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY2(run.err.startsWith("error: --session ") || run.err.startsWith("error: --layer") ||
                 run.err.startsWith("error: --scale"),
             run.err.constData());
    QVERIFY(!QFile::exists(json));
    QVERIFY(!QFile::exists(png));
}

void TestCliSessions::aFailedRunSavesNoSession()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString session = dir.filePath("state.json");
    ProgramRun run = runProgram({"--model", gpt2(), "--layer", "9", "--save-session", session});
    QString problem = refusalProblem(run, "--layer 9: out of range");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(!QFile::exists(session));
    run = runProgram({"--model", gpt2(), "--save-session", dir.filePath("no/such/folder/state.json")});
    problem = refusalProblem(run, "--save-session");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty());
}

REGISTER_TEST_SUITE(TestCliSessions, QCoreApplication)
#include "test_cli_sessions.moc"
