// --view attribution with --export, --model and --metric: the direct logit attribution drawn in
// PNG, SVG and PDF through the real executable, its numbers those of --json's "attribution", and
// every refusal of --attribution as one `error:` line with no file.
#include "tests/support/ModelFolders.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace attn::testing;

class TestCliAttribution : public QObject {
    Q_OBJECT

    static QStringList attributionOf(const QString& model, const QString& path)
    {
        return {"--model",  model,      "--sentence", "the cat sat on the mat", "--view", "attribution", "--size",
                "1000x700", "--export", path};
    }

    static QByteArray readAll(const QString& path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

private slots:
    void exportsThreeFormatsWithTheJsonNumbers()
    {
        QTemporaryDir out;
        const QStringList metric = {"--metric", "262,5", "--position", "3"};
        for (const char* suffix : {"png", "svg", "pdf"}) {
            const QString path = out.filePath(QStringLiteral("attribution.%1").arg(QLatin1String(suffix)));
            const ProgramRun run = runProgram(attributionOf(modelFixture("gpt2-tiny"), path) + metric);
            QVERIFY2(run.exit_code == 0, run.err.constData());
            QVERIFY(QFileInfo(path).size() > 1000);
        }
        QCOMPARE(QImage(out.filePath("attribution.png")).size(), QSize(1000, 700));
        QVERIFY(readAll(out.filePath("attribution.pdf")).startsWith("%PDF"));

        // The SVG's sum line holds the JSON's numbers, as the window's tab writes them.
        const QString json = out.filePath("attribution.json");
        const ProgramRun run = runProgram(QStringList{"--model", modelFixture("gpt2-tiny"), "--sentence",
                                                      "the cat sat on the mat", "--attribution", "--json", json} +
                                          metric);
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QJsonObject attribution = QJsonDocument::fromJson(readAll(json)).object()["attribution"].toObject();
        QCOMPARE(attribution["position"].toInt(), 3);
        double sum = attribution["embed"].toDouble() + attribution["final_bias"].toDouble();
        for (const char* key : {"attn_bias", "mlp"})
            for (const QJsonValue& v : attribution[key].toArray())
                sum += v.toDouble();
        for (const QJsonValue& row : attribution["heads"].toArray())
            for (const QJsonValue& v : row.toArray())
                sum += v.toDouble();
        const QString svg = QString::fromUtf8(readAll(out.filePath("attribution.svg")));
        QVERIFY(svg.contains(QStringLiteral("Direct logit attribution")));
        // The JSON's numbers are printed to 9 digits and the picture's to 4: rounding the JSON's
        // sum can differ from the picture's own in the last printed digit only where it is a tie,
        // which these inputs are not.
        const QString line =
            QStringLiteral("parts sum to %1; the model&apos;s logit difference is %2")
                .arg(QString::number(sum, 'f', 4), QString::number(attribution["logit"].toDouble(), 'f', 4));
        const QString plain = QString(line).replace(QStringLiteral("&apos;"), QStringLiteral("'"));
        QVERIFY2(svg.contains(line) || svg.contains(plain), qPrintable(plain));
        // The position and both tokens as a person reads them ("␣").
        QVERIFY2(svg.contains(QStringLiteral("at position 3")), "position");
        QVERIFY(!svg.contains(QStringLiteral("\u0120")));
    }

    void metricAndPositionChangeThePicture()
    {
        QTemporaryDir out;
        const QString model = modelFixture("llama-tiny");
        const QStringList ids = {"--model", model,         "--token-ids", "1,5,9,2,7",
                                 "--view",  "attribution", "--size",      "800x500"};
        QCOMPARE(runProgram(ids + QStringList{"--metric", "5", "--export", out.filePath("a.png")}).exit_code, 0);
        QCOMPARE(runProgram(ids + QStringList{"--metric", "6", "--export", out.filePath("b.png")}).exit_code, 0);
        QCOMPARE(runProgram(ids + QStringList{"--metric", "5", "--position", "1", "--export", out.filePath("c.png")})
                     .exit_code,
                 0);
        const QImage a(out.filePath("a.png"));
        QVERIFY(!a.isNull());
        QVERIFY(QImage(out.filePath("b.png")) != a);
        QVERIFY(QImage(out.filePath("c.png")) != a);
    }

    void refusedAsAttributionIs_data()
    {
        QTest::addColumn<QString>("fixture");  // a fixture, or "no-head": mistral-tiny without lm_head.weight
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QStringList ids = {"--token-ids", "1,2,3"};
        QTest::newRow("without metric") << "gpt2-tiny" << QStringList{} << "--metric";
        QTest::newRow("on bert") << "bert-tiny" << QStringList{"--metric", "5"} << "pre-norm";
        QTest::newRow("on distilbert") << "distilbert-tiny" << QStringList{"--metric", "5"} << "pre-norm";
        QTest::newRow("without head") << "no-head" << (ids + QStringList{"--metric", "5"}) << "prediction head";
        QTest::newRow("unknown token") << "gpt2-tiny" << QStringList{"--metric", "Ġcatzzz"} << "'Ġcatzzz'";
        QTest::newRow("position past the input")
            << "gpt2-tiny" << (ids + QStringList{"--metric", "5", "--position", "3"}) << "--position 3";
        QTest::newRow("without model") << "" << QStringList{"--metric", "5"} << "--model";
    }
    void refusedAsAttributionIs()
    {
        QFETCH(QString, fixture);
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QStringList all = arguments + QStringList{"--view", "attribution"};
        if (fixture == u"no-head") {
            const QString folder = folderWithoutPredictionHead(dir.path());
            QVERIFY(!folder.isEmpty());
            all = QStringList{"--model", folder} + all;
        } else if (!fixture.isEmpty()) {
            all = QStringList{"--model", modelFixture(fixture)} + all;
            if (!all.contains(QStringLiteral("--token-ids")))
                all += QStringList{"--sentence", "the cat sat"};
        }
        for (const char* suffix : {"png", "svg", "pdf"}) {
            const QString path = dir.filePath(QStringLiteral("never.%1").arg(QLatin1String(suffix)));
            const ProgramRun run = runProgram(all + QStringList{"--export", path});
            const QString problem = refusalProblem(run, expected);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            QVERIFY(!QFileInfo::exists(path));
        }
    }
};

REGISTER_TEST_SUITE(TestCliAttribution, QGuiApplication)
#include "test_cli_attribution.moc"
