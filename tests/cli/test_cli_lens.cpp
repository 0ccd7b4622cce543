// --view lens with --export and --model: the logit lens drawn in PNG, SVG and PDF through the real
// executable, --metric's TARGET changing the colours, and bad values as one `error:` line with no file.
#include "tests/support/ModelFolders.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

using namespace attn::testing;

class TestCliLens : public QObject {
    Q_OBJECT

    static QStringList lensOf(const QString& path)
    {
        return {"--model",    modelFixture("gpt2-tiny"),
                "--sentence", "the cat sat on the mat",
                "--view",     "lens",
                "--size",     "1000x700",
                "--export",   path};
    }

private slots:
    void exportsThreeFormats()
    {
        QTemporaryDir out;
        for (const char* suffix : {"png", "svg", "pdf"}) {
            const QString path = out.filePath(QStringLiteral("lens.%1").arg(QLatin1String(suffix)));
            const ProgramRun run = runProgram(lensOf(path));
            QVERIFY2(run.exit_code == 0, run.err.constData());
            QVERIFY(QFileInfo(path).size() > 1000);
        }
        const QImage png(out.filePath("lens.png"));
        QCOMPARE(png.size(), QSize(1000, 700));
        QFile svg(out.filePath("lens.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("embed"));
        QVERIFY(text.contains("Logit lens"));
        QFile pdf(out.filePath("lens.pdf"));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(4) == "%PDF");
    }

    void metricAndTopKChangeThePicture()
    {
        QTemporaryDir out;
        QCOMPARE(runProgram(lensOf(out.filePath("plain.png"))).exit_code, 0);
        QCOMPARE(runProgram(lensOf(out.filePath("tracked.png")) + QStringList{"--metric", "262"}).exit_code, 0);
        QCOMPARE(runProgram(lensOf(out.filePath("k2.png")) + QStringList{"--top-k", "2"}).exit_code, 0);
        const QImage plain(out.filePath("plain.png"));
        QVERIFY(!plain.isNull());
        QVERIFY(QImage(out.filePath("tracked.png")) != plain);
        QVERIFY(QImage(out.filePath("k2.png")) != plain);
    }

    // The lens is planned with the pass (LensMemory through MemoryPlan): gpt2-tiny's (64, V) block
    // of logits alone is 12.3 MiB, so a budget of the program's 256 MiB baseline and 12 MiB more
    // refuses --logit-lens and --view lens before the pass, saying so, and 300 MiB draws it.
    void aLensOverTheMemoryBudgetIsRefused()
    {
        QTemporaryDir out;
        const QString json = out.filePath("lens.json");
        const QStringList lens = {
            "--model", modelFixture("gpt2-tiny"), "--sentence", "the cat sat on the mat", "--logit-lens", "--json",
            json};
        const ProgramRun refused = runProgram(lens + QStringList{"--memory-budget", "268M"});
        QVERIFY(refused.exit_code > 0);
        QVERIFY2(refused.err.startsWith("error: --logit-lens: the logit lens of 6 tokens needs about ") &&
                     refused.err.contains("--memory-budget") && refused.err.count('\n') == 1,
                 refused.err.constData());
        QVERIFY(!QFileInfo::exists(json));
        const QString path = out.filePath("lens.png");
        const ProgramRun picture = runProgram(lensOf(path) + QStringList{"--memory-budget", "268M"});
        QVERIFY2(picture.exit_code > 0 && picture.err.startsWith("error: --view lens: the logit lens"),
                 picture.err.constData());
        QVERIFY(!QFileInfo::exists(path));
        const ProgramRun fits = runProgram(lens + QStringList{"--memory-budget", "300M"});
        QVERIFY2(fits.exit_code == 0, fits.err.constData());
        QVERIFY(QFileInfo::exists(json));
    }

    void badValuesAreOneErrorLine()
    {
        QTemporaryDir out;
        const QString path = out.filePath("never.png");
        for (const QStringList& bad : {QStringList{"--top-k", "0"}, QStringList{"--metric", "Ġcatzzz"}}) {
            const ProgramRun run = runProgram(lensOf(path) + bad);
            QVERIFY(run.exit_code > 0);
            QVERIFY2(run.err.startsWith("error: ") && run.err.count('\n') == 1, run.err.constData());
            QVERIFY(!QFileInfo::exists(path));
        }
        // Without --model the view is refused, saying why it needs one.
        const ProgramRun single = runProgram({"--export", path, "--view", "lens"});
        QVERIFY(single.exit_code > 0);
        QVERIFY2(single.err.contains("prediction head"), single.err.constData());
        QVERIFY(!QFileInfo::exists(path));
    }
};

REGISTER_TEST_SUITE(TestCliLens, QGuiApplication)
#include "test_cli_lens.moc"
