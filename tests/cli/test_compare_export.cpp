// Pictures of the compare and lines views in PNG, SVG and PDF: valid files of the asked size,
// written atomically, with every error path leaving nothing behind.
// Set ATTENTION_KEEP_PICTURES=DIR to keep a copy of each picture for looking at it.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestSuite.h"
#include "ui/controller/AttentionController.h"
#include "ui/export/CompareExport.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/lines/LinesView.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

using namespace attn;

class TestCompareExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    AttentionResult m_result;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    void keep(const QString& file) const
    {
        const QString keep_dir = qEnvironmentVariable("ATTENTION_KEEP_PICTURES");
        if (!keep_dir.isEmpty()) {
            const QString target = QDir(keep_dir).filePath(QFileInfo(file).fileName());
            QFile::remove(target);
            QFile::copy(file, target);
        }
    }

    // The file is a picture of the asked size in its format.
    void verifyPicture(const QString& file, const QSize& size) const
    {
        QVERIFY2(QFileInfo::exists(file), qPrintable(file));
        keep(file);
        const QString suffix = QFileInfo(file).suffix();
        if (suffix == QLatin1String("png")) {
            const QImage image(file);
            QVERIFY(!image.isNull());
            QCOMPARE(image.size(), size);
            // Not a blank page: some pixels are far from white.
            int dark = 0;
            for (int y = 0; y < image.height(); y += 4)
                for (int x = 0; x < image.width(); x += 4)
                    dark += qGray(image.pixel(x, y)) < 128;
            QVERIFY2(dark > 50, qPrintable(QStringLiteral("%1 dark samples").arg(dark)));
        } else if (suffix == QLatin1String("svg")) {
            QSvgRenderer renderer(file);
            QVERIFY(renderer.isValid());
            QCOMPARE(renderer.viewBox(), QRect(QPoint(0, 0), size));  // pixel units, width and height in px
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray svg = f.readAll();
            QVERIFY(svg.contains("<path") || svg.contains("<polyline"));  // vectors, not one bitmap
            // Drawn back, it is a picture, not an empty page.
            QImage drawn(size, QImage::Format_ARGB32);
            drawn.fill(Qt::white);
            {
                QPainter painter(&drawn);
                renderer.render(&painter);
            }
            int dark = 0;
            for (int y = 0; y < drawn.height(); y += 4)
                for (int x = 0; x < drawn.width(); x += 4)
                    dark += qGray(drawn.pixel(x, y)) < 128;
            QVERIFY2(dark > 50, qPrintable(QStringLiteral("%1 dark samples in the drawn SVG").arg(dark)));
            if (!qEnvironmentVariable("ATTENTION_KEEP_PICTURES").isEmpty())
                drawn.save(QDir(qEnvironmentVariable("ATTENTION_KEEP_PICTURES"))
                               .filePath(QFileInfo(file).fileName() + ".png"));
        } else {
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray pdf = f.readAll();
            QVERIFY(pdf.startsWith("%PDF-"));
            QVERIFY(pdf.trimmed().endsWith("%%EOF"));
            const QRegularExpression media(QStringLiteral("/MediaBox \\[0 0 ([0-9.]+) ([0-9.]+)\\]"));
            const QRegularExpressionMatch match = media.match(QString::fromLatin1(pdf));
            QVERIFY(match.hasMatch());
            // The one convention of every picture: a pixel is 1/96 inch, 0.75 pt.
            QCOMPARE(match.captured(1).toDouble(), size.width() * 0.75);
            QCOMPARE(match.captured(2).toDouble(), size.height() * 0.75);
            QCOMPARE(pdf.count("/Type /Page\n") + pdf.count("/Type /Page "), 1);
        }
    }

    int filesInDir() const { return int(QDir(m_dir.path()).entryList(QDir::Files).size()); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto result = AttentionPipeline::run(RunSettings{}, RunSettings::defaultSentence(), TraceDetail::Probabilities);
        QVERIFY2(result.ok(), qPrintable(result.error()));
        m_result = std::move(result).value();
    }

    void linesInAllFormats_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("head");
        QTest::addColumn<QSize>("size");
        QTest::newRow("png head 0") << "lines-head0.png" << 0 << QSize(1200, 900);
        QTest::newRow("png all heads") << "lines-all.png" << -1 << QSize(1200, 900);
        QTest::newRow("png small") << "lines-small.png" << 3 << QSize(400, 300);
        QTest::newRow("svg") << "lines.svg" << -1 << QSize(900, 700);
        QTest::newRow("pdf") << "lines.pdf" << 2 << QSize(960, 720);
    }
    void linesInAllFormats()
    {
        QFETCH(QString, name);
        QFETCH(int, head);
        QFETCH(QSize, size);
        const Status status = CompareExport::exportLines(m_result, head, path(name), size);
        QVERIFY2(status.ok(), qPrintable(status.error()));
        verifyPicture(path(name), size);
    }

    void badPathsLeaveNothing_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown extension") << "x.bmp"
                                           << "unknown extension";
        QTest::newRow("missing directory") << "nowhere/x.png"
                                           << "does not exist";
        QTest::newRow("through a file") << "afile/x.png"
                                        << "not a directory";
    }
    void badPathsLeaveNothing()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        QFile blocker(path("afile"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const int before = filesInDir();
        for (const Status& status : {CompareExport::exportLines(m_result, 0, path(name), {300, 200}),
                                     CompareExport::exportCompare(m_result, 0, 1, path(name), {300, 200})}) {
            QVERIFY(!status.ok());
            QVERIFY2(status.error().contains(expected), qPrintable(status.error()));
            QVERIFY(status.error().contains(path(name)));
        }
        QCOMPARE(filesInDir(), before);
    }
    void compareInAllFormats_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QSize>("size");
        QTest::newRow("png") << "compare.png" << QSize(1200, 900);
        QTest::newRow("png wide") << "compare-wide.png" << QSize(1800, 640);
        QTest::newRow("svg") << "compare.svg" << QSize(1200, 700);
        QTest::newRow("pdf") << "compare.pdf" << QSize(1200, 700);
    }
    void compareInAllFormats()
    {
        QFETCH(QString, name);
        QFETCH(QSize, size);
        const Status status = CompareExport::exportCompare(m_result, 2, 5, path(name), size);
        QVERIFY2(status.ok(), qPrintable(status.error()));
        verifyPicture(path(name), size);
    }

    // B from another result: the causal twin of the same head.
    void compareAgainstOtherSettings()
    {
        RunSettings causal;
        causal.causal = true;
        auto twin = AttentionPipeline::run(causal, RunSettings::defaultSentence(), TraceDetail::Probabilities);
        QVERIFY(twin.ok());
        const Status status = CompareExport::exportCompare(m_result, 3, twin.value(), 3, "causal",
                                                           path("compare-causal.png"), {1500, 620});
        QVERIFY2(status.ok(), qPrintable(status.error()));
        verifyPicture(path("compare-causal.png"), {1500, 620});
        // Inputs of different lengths cannot be compared cell by cell: an error, no file.
        auto shorter = AttentionPipeline::run(RunSettings{}, "The cat", TraceDetail::Probabilities);
        QVERIFY(shorter.ok());
        const Status mismatch =
            CompareExport::exportCompare(m_result, 0, shorter.value(), 0, "", path("mismatch.png"), {600, 400});
        QVERIFY(!mismatch.ok());
        QVERIFY2(mismatch.error().contains("different lengths") || mismatch.error().contains("differ"),
                 qPrintable(mismatch.error()));
        QVERIFY(!QFileInfo::exists(path("mismatch.png")));
    }

    // The live widgets as a user sees them (grabbed from the screen buffer), kept for looking at.
    void widgetsOnScreen()
    {
        auto shared = std::make_shared<const AttentionResult>(m_result);
        CompareView compare;
        AttentionController controller;  // computes side B, as in the window
        connect(&compare, &CompareView::variantRequested, &controller, &AttentionController::requestVariant);
        connect(&controller, &AttentionController::variantReady, &compare, &CompareView::showVariant);
        connect(&controller, &AttentionController::variantFailed, &compare, &CompareView::showVariantError);
        compare.resize(1300, 950);
        compare.setSentence(RunSettings::defaultSentence());
        compare.setResult(shared);
        compare.setHeads(2, 5);
        compare.show();
        QVERIFY(QTest::qWaitForWindowExposed(&compare));
        QTest::qWait(50);  // queued replots
        const QImage compare_shot = compare.grab().toImage();
        QCOMPARE(compare_shot.size(), QSize(1300, 950));
        QVERIFY(compare_shot.save(path("compare-widget.png")));
        keep(path("compare-widget.png"));

        compare.setOtherSettings(true);
        controller.waitForIdle();
        QVERIFY(compare.resultB() && compare.resultB()->config.causal);
        compare.pickHead(3);
        QTest::qWait(50);
        QVERIFY(compare.grab().toImage().save(path("compare-widget-causal.png")));
        keep(path("compare-widget-causal.png"));

        LinesView lines;
        lines.resize(900, 700);
        lines.setResult(shared);
        lines.setHead(-1);
        lines.show();
        QVERIFY(QTest::qWaitForWindowExposed(&lines));
        lines.canvas()->setFocusToken(LinesCanvas::Side::Query, 7);  // hover "it"
        const QImage lines_shot = lines.grab().toImage();
        QVERIFY(lines_shot.save(path("lines-widget-hover.png")));
        keep(path("lines-widget-hover.png"));
    }

    // The command line: --export FILE --view compare --compare A,B (and --view lines), headless
    // with no display at all; bad heads give one error line and no file.
    void commandLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QSize>("size");
        QTest::newRow("compare png") << QStringList{"--view", "compare", "--compare", "1,6"} << "cli-compare.png"
                                     << QSize(1200, 900);
        QTest::newRow("compare svg causal")
            << QStringList{"--view", "compare", "--compare", "0,3", "--causal", "--size", "1500x600"}
            << "cli-compare.svg" << QSize(1500, 600);
        QTest::newRow("compare pdf") << QStringList{"--view", "compare", "--compare", "2,2"} << "cli-compare.pdf"
                                     << QSize(1200, 900);
        QTest::newRow("lines png") << QStringList{"--view", "lines", "--head", "4", "--size", "800x700"}
                                   << "cli-lines.png" << QSize(800, 700);
    }
    void commandLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, name);
        QFETCH(QSize, size);
        const ProgramRun run = runProgram(arguments << "--export" << path(name));
        QVERIFY2(run.exit_code == 0, run.err.constData());
        verifyPicture(path(name), size);
    }

    void commandLineBadHeads()
    {
        for (const QString& pair : {QStringLiteral("0,8"), QStringLiteral("9,1")}) {
            const ProgramRun run =
                runProgram({"--view", "compare", "--compare", pair, "--export", path("cli-bad.png")});
            QCOMPARE(run.exit_code, 1);
            const QString err = QString::fromUtf8(run.err);
            QCOMPARE(err.count('\n'), 1);  // the contract's one error line
            QVERIFY2(err.startsWith("error: --compare " + pair + ": head") && err.contains("out of range"),
                     qPrintable(err));
            QVERIFY(!QFileInfo::exists(path("cli-bad.png")));
        }
    }

    void badHeads()
    {
        for (auto [a, b] : {std::pair{0, 8}, std::pair{-1, 0}}) {
            const Status status = CompareExport::exportCompare(m_result, a, b, path("bad.png"), {300, 200});
            QVERIFY(!status.ok());
            QVERIFY2(status.error().startsWith("--compare: head") && status.error().contains("8 heads"),
                     qPrintable(status.error()));
            QVERIFY(!QFileInfo::exists(path("bad.png")));
        }
        const Status status = CompareExport::exportLines(m_result, 8, path("bad.png"), {300, 200});
        QVERIFY(!status.ok());
        QVERIFY2(status.error().contains("head 8"), qPrintable(status.error()));
        QVERIFY(!QFileInfo::exists(path("bad.png")));
    }
};

REGISTER_TEST_SUITE(TestCompareExport, QApplication)
#include "test_compare_export.moc"
