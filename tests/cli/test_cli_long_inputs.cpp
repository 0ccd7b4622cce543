// Long inputs through the real executable: memory planned before computing (--memory-budget and
// its refusals), and pictures of thousands of tokens drawn reduced.
#include "tests/support/ProgramRun.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QString words(int count)
{
    QStringList list;
    list.reserve(count);
    for (int i = 0; i < count; ++i)
        list.append(QStringLiteral("w%1").arg(i % 97));
    return list.join(u' ');
}

// Pixels that are not (near) white: something was drawn.
int inkedPixels(const QImage& image)
{
    int inked = 0;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            inked += qGray(image.pixel(x, y)) < 235;
    return inked;
}

}  // namespace

class TestCliLongInputs : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Exactly one `error:` line containing `text`, exit status non-zero, nothing written.
    ProgramRun verifyRefused(const QStringList& arguments, const QString& path, const QString& text)
    {
        const ProgramRun run = runProgram(arguments);
        [&] {
            const QString problem = refusalProblem(run, text);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            QVERIFY2(path.isEmpty() || !QFileInfo::exists(path), qPrintable(path));
            QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden).filter("tmp").size(), 0);
        }();
        return run;
    }

private slots:
    void badBudgets_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("reason");
        QTest::addRow("not a size") << "lots"
                                    << "--memory-budget: 'lots' is not a size";
        QTest::addRow("too small") << "10M"
                                   << "--memory-budget: '10M' is less than";
        QTest::addRow("negative") << "-1G"
                                  << "--memory-budget: '-1G' is not a size";
    }
    void badBudgets()
    {
        QFETCH(QString, value);
        QFETCH(QString, reason);
        const QString png = m_dir.filePath("budget.png");
        verifyRefused({"--memory-budget", value, "--export", png}, png, reason);
    }

    void aRequestOverTheBudgetIsRefusedSayingWhatFits()
    {
        // 3,000 tokens x 8 heads: 288 MB of weights alone, over a 400 MB budget with the program.
        const QString png = m_dir.filePath("refused.png");
        const ProgramRun run = verifyRefused(
            {"--sentence", words(3000), "--d-model", "64", "--heads", "8", "--memory-budget", "400M", "--export", png},
            png, QStringLiteral("3,000 tokens x 3,000 keys x 8 heads need about"));
        const QString message = QString::fromUtf8(run.err);
        QVERIFY2(message.contains("over the memory budget of 400 MB"), qPrintable(message));
        QVERIFY2(message.contains(QRegularExpression("at most [0-9,]+ tokens fit, or [1-7] heads? at this length")),
                 qPrintable(message));
        QVERIFY2(message.contains("(--memory-budget)"), qPrintable(message));
        // The same with --json: refused on the weights, and no file left behind.
        const QString json = m_dir.filePath("refused.json");
        verifyRefused(
            {"--sentence", words(3000), "--d-model", "64", "--heads", "8", "--memory-budget", "400M", "--json", json},
            json, QStringLiteral("3,000 tokens x 3,000 keys x 8 heads need about"));
    }

    void jsonIsWrittenAsItIsMadeNotPlannedAsText()
    {
        // 1,500 tokens, one head: 2.25 million weights, about 25 MB of JSON text. Planned as whole
        // text that was 36 MB more than the 290 MB budget holds; written as it is made, it is a
        // chunk of text and a block of rows, and the document is whole.
        const QString json = m_dir.filePath("streamed.json");
        const ProgramRun run = runProgram({"--sentence", words(1500), "--d-model", "8", "--heads", "1",
                                           "--memory-budget", "290M", "--json", json});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QFile file(json);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError parse_error;
        const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parse_error);
        QVERIFY2(parse_error.error == QJsonParseError::NoError, qPrintable(parse_error.errorString()));
        const QJsonArray heads = document.object().value("attention").toArray();
        QCOMPARE(heads.size(), 1);
        QCOMPARE(heads[0].toArray().size(), 1500);
        QCOMPARE(heads[0].toArray()[1499].toArray().size(), 1500);
    }

    void aLongInputIsExportedAsAReducedPicture()
    {
        // 3,000 tokens: drawn as 1,000 x 1,000 cells of 3 x 3 (the largest of each), in a
        // picture of the requested size, within a budget far below what 9 million cells drawn
        // one by one would take.
        const QString png = m_dir.filePath("long-head.png");
        const ProgramRun run = runProgram({"--sentence", words(3000), "--d-model", "8", "--heads", "1", "--view",
                                           "head", "--memory-budget", "400M", "--export", png, "--size", "800x700"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QVERIFY2(run.err.isEmpty(), run.err.constData());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(800, 700));
        QVERIFY(inkedPixels(image) > 5000);
    }

    void aLongInputsLinesAreThinned()
    {
        const QString png = m_dir.filePath("long-lines.png");
        const ProgramRun run = runProgram({"--sentence", words(3000), "--d-model", "8", "--heads", "1", "--view",
                                           "lines", "--export", png, "--size", "700x900"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QCOMPARE(QImage(png).size(), QSize(700, 900));
    }
};

REGISTER_TEST_SUITE(TestCliLongInputs, QCoreApplication)
#include "test_cli_long_inputs.moc"
