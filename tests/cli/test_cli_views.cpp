// The command line for the compare, lines, shapes and walkthrough views, through the real
// executable with no display: --export --view shapes (PNG/SVG/PDF, sizes, the shapes written on it,
// every contract error), --tab, and --screenshot (the whole window as a PNG, atomically).
#include "tests/support/Float32Bounds.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attn::testing;

namespace {

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
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

class TestCliViews : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Exactly one `error:` line naming `option`, exit status non-zero, nothing written.
    void verifyRefused(const QStringList& arguments, const QString& path, const char* option)
    {
        const QString problem = refusalProblem(runProgram(arguments), QString::fromLatin1(option));
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(!QFileInfo::exists(path), qPrintable(path));
        QCOMPARE(QDir(QFileInfo(path).absolutePath()).entryList(QDir::Files | QDir::Hidden).filter("tmp").size(), 0);
    }

private slots:
    void shapesPngSvgPdf()
    {
        // The classic example: B = 32, T = 10, d_model 512, 8 heads.
        const QStringList model = {"--view", "shapes",     "--batch",
                                   "32",     "--sentence", "one two three four five six seven eight nine ten"};
        const QString png = m_dir.filePath("shapes.png");
        ProgramRun run = runProgram(QStringList{"--export", png, "--size", "1000x700"} + model);
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QVERIFY(run.err.isEmpty());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1000, 700));
        QVERIFY(inkedPixels(image) > 2000);

        const QString svg = m_dir.filePath("shapes.svg");
        run = runProgram(QStringList{"--export", svg} + model);
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QByteArray svg_text = readAll(svg);
        QVERIFY(svg_text.contains("<svg width=\"1200\" height=\"900\""));
        QVERIFY(svg_text.contains("(32, 8, 10, 64)"));  // Q split into heads
        QVERIFY(svg_text.contains("(32, 10, 512)"));    // the input and the output
        QVERIFY(svg_text.contains("(32, 8, 10, 10)"));  // the scores

        const QString pdf = m_dir.filePath("shapes.pdf");
        run = runProgram(QStringList{"--export", pdf, "--size", "800x600"} + model);
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QByteArray pdf_bytes = readAll(pdf);
        QVERIFY(pdf_bytes.startsWith("%PDF-"));
        QVERIFY(pdf_bytes.contains("/MediaBox [0 0 600.000000 450.000000]"));  // 800 x 600 px at 0.75 pt

        // The batch size changes the shapes drawn, not the numbers.
        const QString b1 = m_dir.filePath("shapes-b1.svg");
        run = runProgram({"--export", b1, "--view", "shapes", "--sentence", "one two three"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QVERIFY(readAll(b1).contains("(1, 8, 3, 64)"));
    }

    void shapesContractErrors()
    {
        const QString dir = m_dir.filePath("errors");
        QVERIFY(QDir().mkpath(dir));
        const QString blocker = QDir(dir).filePath("a-file");
        {
            QFile file(blocker);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("x");
        }
        const QString bmp = QDir(dir).filePath("shapes.bmp");
        verifyRefused({"--export", bmp, "--view", "shapes"}, bmp, "--export");
        const QString missing = QDir(dir).filePath("no-such-dir/shapes.png");
        verifyRefused({"--export", missing, "--view", "shapes"}, missing, "--export");
        const QString through = QDir(blocker).filePath("shapes.svg");
        verifyRefused({"--export", through, "--view", "shapes"}, through, "--export");
        const QString head = QDir(dir).filePath("head.pdf");
        verifyRefused({"--export", head, "--view", "shapes", "--head", "8"}, head, "--head");
        const QString batch = QDir(dir).filePath("batch.png");
        verifyRefused({"--export", batch, "--view", "shapes", "--batch", "0"}, batch, "--batch");
        // Only the file put there by the test.
        QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::Hidden), QStringList{"a-file"});
    }

    void screenshotOfEachTab_data()
    {
        QTest::addColumn<QString>("tab");
        for (const char* tab : {"grid", "head", "compare", "lines", "shapes", "walkthrough"})
            QTest::newRow(tab) << QString::fromLatin1(tab);
    }

    void screenshotOfEachTab()
    {
        QFETCH(QString, tab);
        const QString path = m_dir.filePath(QStringLiteral("window-%1.png").arg(tab));
        const ProgramRun run = runProgram(
            {"--screenshot", path, "--tab", tab, "--size", "1000x700", "--sentence", "the cat sat on the mat"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QVERIFY2(run.err.isEmpty(), run.err.constData());
        const QImage image(path);
        QCOMPARE(image.size(), QSize(1000, 700));
        QVERIFY(inkedPixels(image) > 3000);
    }

    // Qt's own options are QApplication's: taken by it before the command line is read.
    void qtOptionsAreTakenByQt()
    {
        const QString path = m_dir.filePath("styled.png");
        const ProgramRun run = runProgram({"-platform", "offscreen", "-style", "Fusion", "-reverse", "--screenshot",
                                           path, "--size", "1000x700", "--sentence", "the cat sat"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QVERIFY2(run.err.isEmpty(), run.err.constData());
        QCOMPARE(QImage(path).size(), QSize(1000, 700));
        const ProgramRun json = runProgram({"--json", "-", "-style", "Fusion", "--sentence", "a b"});
        QVERIFY2(json.exit_code == 0, json.err.constData());
        QVERIFY(json.out.contains("\"tokens\""));
        // What neither Qt nor the contract knows is still refused, as one line.
        const QString refused = m_dir.filePath("refused.png");
        verifyRefused({"-style", "Fusion", "--screenshot", refused, "--frobnicate"}, refused, "frobnicate");
    }

    void screenshotErrors()
    {
        const QString svg = m_dir.filePath("window.svg");
        verifyRefused({"--screenshot", svg}, svg, "--screenshot");
        const QString missing = m_dir.filePath("nope/window.png");
        verifyRefused({"--screenshot", missing}, missing, "--screenshot");
        const QString tab = m_dir.filePath("tab.png");
        verifyRefused({"--screenshot", tab, "--tab", "nothing"}, tab, "--tab");
        const QString heads = m_dir.filePath("heads.png");
        verifyRefused({"--screenshot", heads, "--heads", "7"}, heads, "--heads");
        const QString head = m_dir.filePath("head.png");
        verifyRefused({"--screenshot", head, "--head", "8"}, head, "--head 8");
        const QString weights = m_dir.filePath("weights.png");
        verifyRefused({"--screenshot", weights, "--weights", sourcePath("README.md")}, weights, "--weights");
        const QString both = m_dir.filePath("both.png");
        verifyRefused({"--screenshot", both, "--json", m_dir.filePath("x.json")}, both, "--screenshot");
        QVERIFY(!QFileInfo::exists(m_dir.filePath("x.json")));
        const QString example = m_dir.filePath("example.png");
        verifyRefused({"--screenshot", example, "--example", "big"}, example, "--example");
        const QString json = m_dir.filePath("example.json");
        verifyRefused({"--json", json, "--example", "toy"}, json, "--example");
        // Smaller than the window can be: refused rather than saved at another size than asked.
        const QString tiny = m_dir.filePath("tiny.png");
        verifyRefused({"--screenshot", tiny, "--size", "200x150"}, tiny, "--size 200x150");
    }

    void screenshotOfTheToyExample()
    {
        const QString path = m_dir.filePath("toy.png");
        const ProgramRun run = runProgram({"--screenshot", path, "--tab", "walkthrough", "--example", "toy"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QCOMPARE(QImage(path).size(), QSize(1400, 900));  // the default window size
    }

    // --color-scale and --hide-tokens for every --export (contract, "Across layers"), and the
    // additions --top-mass, --aggregate-heads and --json-trace.
    void heatmapOptionsOfExports()
    {
        const QString sentence = QStringLiteral("the cat sat on the mat");
        for (const char* scale : {"linear", "log", "percentile", "per-row", "all-cells"}) {
            const QString path = m_dir.filePath(QStringLiteral("grid-%1.png").arg(QLatin1String(scale)));
            const ProgramRun run = runProgram({"--sentence", sentence, "--export", path, "--color-scale", scale,
                                               "--hide-tokens", "0", "--top-mass", "90", "--aggregate-heads", "max"});
            QVERIFY2(run.exit_code == 0, run.err.constData());
            QVERIFY(inkedPixels(QImage(path)) > 3000);
        }
        const QString head = m_dir.filePath("head-log.svg");
        QVERIFY(runProgram({"--sentence", sentence, "--export", head, "--view", "head", "--color-scale", "log"})
                    .exit_code == 0);
        const QString bad_scale = m_dir.filePath("bad-scale.png");
        verifyRefused({"--export", bad_scale, "--color-scale", "rainbow"}, bad_scale, "--color-scale");
        const QString outside = m_dir.filePath("outside.png");
        verifyRefused({"--sentence", sentence, "--export", outside, "--hide-tokens", "6"}, outside, "--hide-tokens");
        const QString every = m_dir.filePath("every.png");
        verifyRefused({"--sentence", "a b", "--export", every, "--hide-tokens", "1,0"}, every, "every token");
        const QString garbled = m_dir.filePath("garbled.png");
        verifyRefused({"--export", garbled, "--hide-tokens", "x"}, garbled, "--hide-tokens");
        const QString mass = m_dir.filePath("mass.png");
        verifyRefused({"--export", mass, "--top-mass", "0"}, mass, "--top-mass");
        const QString json = m_dir.filePath("scale.json");
        verifyRefused({"--json", json, "--color-scale", "log"}, json, "--color-scale");
        verifyRefused({"--json", json, "--reduce", "mean"}, json, "--reduce");
        const QString reduce = m_dir.filePath("reduce.png");
        verifyRefused({"--export", reduce, "--reduce", "median"}, reduce, "--reduce");
        verifyRefused({"--export", json + ".png", "--json-trace"}, json + ".png", "--json-trace");
    }

    // --reduce (an addition): a 1,100-token head drawn in 2 x 2 blocks, each the largest of its
    // weights or their mean; the mean's picture is darker (viridis: low values are dark) and says so.
    void reducedPixelsOfExports()
    {
        QStringList words;
        for (int i = 0; i < 1100; ++i)
            words.append(QStringLiteral("w%1").arg(i % 89));
        double brightness[2] = {0.0, 0.0};
        int index = 0;
        for (const char* how : {"max", "mean"}) {
            const QString path = m_dir.filePath(QStringLiteral("reduced-%1.png").arg(QLatin1String(how)));
            const ProgramRun run = runProgram({"--sentence", words.join(u' '), "--d-model", "8", "--heads", "1",
                                               "--view", "head", "--export", path, "--reduce", how});
            QVERIFY2(run.exit_code == 0, run.err.constData());
            const QImage image = QImage(path).convertToFormat(QImage::Format_RGB32);
            QVERIFY(!image.isNull());
            double sum = 0.0;
            for (int y = image.height() / 4; y < image.height() * 3 / 4; ++y)  // the heatmap's middle
                for (int x = image.width() / 4; x < image.width() * 3 / 4; ++x)
                    sum += qGray(image.pixel(x, y));
            brightness[index++] = sum;
        }
        // Measured 0.91 here: d_model 8 gives flat rows, whose mean is not far below their max.
        QVERIFY2(brightness[1] < brightness[0] * 0.95,
                 qPrintable(QStringLiteral("%1 %2").arg(brightness[0]).arg(brightness[1])));
    }

    void jsonTraceHoldsWhatReproducesTheResult()
    {
        const ProgramRun run = runProgram(
            {"--sentence", "the cat sat", "--causal", "--heads", "2", "--d-model", "8", "--json", "-", "--json-trace"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        const QJsonObject trace = json["trace"].toObject();
        QCOMPARE(trace["heads"].toArray(), (QJsonArray{0, 1}));
        QCOMPARE(trace["x"].toArray().size(), 3);
        const QJsonArray q = trace["q"].toArray();
        const QJsonArray k = trace["k"].toArray();
        const QJsonArray scores = trace["scores"].toArray();
        QCOMPARE(q.size(), 2);
        QCOMPARE(q[0].toArray()[0].toArray().size(), 4);  // head_dim
        const double scale = trace["scale"].toDouble();
        QCOMPARE(scale, json["config"].toObject()["scale"].toDouble());
        // Scores are Q_h K_h^T / scale, null above the diagonal, and their softmax is the attention
        // of the document. Every float is printed in its shortest form that reads back to the same
        // float, so q and k here are the program's own: a score is one float32 pass of a 4-term
        // product and the scaling (gamma_6 of sum |q_d k_d| / scale). The program's softmax read its
        // engine's scores, another pass of that product: so the printed scores lie within two
        // passes' bound of those (delta), and each weight within probabilityBound of the softmax
        // of the printed scores computed here in double.
        const int head_dim = 4;
        for (int head = 0; head < 2; ++head)
            for (int query = 0; query < 3; ++query) {
                double row_max = -1e300;
                double delta = 0.0;
                for (int key = 0; key <= query; ++key) {
                    double dot = 0.0, size = 0.0;
                    for (int d = 0; d < head_dim; ++d) {
                        const double term = q[head].toArray()[query].toArray()[d].toDouble() *
                                            k[head].toArray()[key].toArray()[d].toDouble();
                        dot += term;
                        size += std::abs(term);
                    }
                    const double score = scores[head].toArray()[query].toArray()[key].toDouble();
                    QVERIFY(std::abs(score - dot / scale) <= gammaOf(head_dim + 2) * size / scale);
                    row_max = std::max(row_max, score);
                    delta = std::max(delta, 2 * gammaOf(head_dim + 2) * size / scale);
                }
                for (int key = query + 1; key < 3; ++key)
                    QVERIFY(scores[head].toArray()[query].toArray()[key].isNull());
                double sum = 0.0;
                for (int key = 0; key <= query; ++key)
                    sum += std::exp(scores[head].toArray()[query].toArray()[key].toDouble() - row_max);
                for (int key = 0; key <= query; ++key) {
                    const double softmax =
                        std::exp(scores[head].toArray()[query].toArray()[key].toDouble() - row_max) / sum;
                    const double weight = json["attention"].toArray()[head].toArray()[query].toArray()[key].toDouble();
                    const DoubleMatrix p = DoubleMatrix::Constant(1, 1, std::max(softmax, weight));
                    const double bound = probabilityBound(p, Eigen::VectorXd::Constant(1, delta), 1)(0, 0);
                    QVERIFY(std::abs(softmax - weight) <= bound);
                }
            }
    }

    // The loader's reason names no option (the window shows it too); the command line says which.
    void weightsWithoutHeadsNameTheOption()
    {
        const QString weights = m_dir.filePath("no-heads.json");
        QFile file(weights);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"wq": [[1, 0], [0, 1]], "wk": [[1, 0], [0, 1]], "wv": [[1, 0], [0, 1]]})");
        file.close();
        const QString json = m_dir.filePath("no-heads-out.json");
        verifyRefused({"--weights", weights, "--json", json}, json, "--heads");
        const ProgramRun given = runProgram({"--weights", weights, "--heads", "1", "--json", "-"});
        QVERIFY2(given.exit_code == 0, given.err.constData());
    }
};

REGISTER_TEST_SUITE(TestCliViews, QGuiApplication)
#include "test_cli_views.moc"
