// --model DIR --view model through the real executable: every layer x head as one grid, in PNG,
// SVG (drawn by librsvg) and PDF (drawn by poppler), each cell's centre of the colour the
// fixture's expected attention gives it (tests/fixtures/models/<case>/expected.json, made by the
// PyTorch port of transformers); --view model-shapes draws the whole chain with its
// parameter count; --view model without --model is one error line and no file.
#include "core/analysis/ModelParameters.h"
#include "core/analysis/ShapeData.h"
#include "core/model/ModelConfig.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestSuite.h"
#include "ui/heatmap/Hatch.h"
#include "ui/views/model/ModelGridPainter.h"

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attn;
using namespace attn::testing;

namespace {

struct Expected {
    QString ids;                                                           // "8086,1463,..."
    std::vector<std::vector<std::vector<std::vector<double>>>> attention;  // (L, H, T, T)
    bool causal = false;
    int layers() const { return int(attention.size()); }
    int heads() const { return int(attention[0].size()); }
    int tokens() const { return int(attention[0][0].size()); }
};

Expected readExpected(const QString& fixture)
{
    const QJsonObject json = readJsonObject(modelFixture(fixture) + "/expected.json");
    Expected e;
    QStringList ids;
    for (const QJsonValue& id : json["token_ids"].toArray())
        ids << QString::number(id.toInt());
    e.ids = ids.join(',');
    for (const QJsonValue& layer : json["attention"].toArray()) {
        e.attention.emplace_back();
        for (const QJsonValue& head : layer.toArray()) {
            e.attention.back().emplace_back();
            for (const QJsonValue& row : head.toArray()) {
                e.attention.back().back().emplace_back();
                for (const QJsonValue& w : row.toArray())
                    e.attention.back().back().back().push_back(w.toDouble());
            }
        }
    }
    e.causal = json["model"].toObject()["causal"].toBool();
    return e;
}

// Runs a converter; the empty string on success.
QString convert(const QString& program, const QStringList& arguments)
{
    const QString found = QStandardPaths::findExecutable(program);
    if (found.isEmpty())
        return program + QStringLiteral(" is not installed (scripts/bootstrap.sh installs it)");
    QProcess process;
    process.start(found, arguments);
    if (!process.waitForFinished(120000) || process.exitCode() != 0)
        return program + QStringLiteral(" failed: ") + QString::fromLocal8Bit(process.readAllStandardError());
    return {};
}

int channelDistance(QRgb a, QRgb b)
{
    return std::max({std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)), std::abs(qBlue(a) - qBlue(b))});
}

}  // namespace

class TestCliModelView : public QObject {
    Q_OBJECT

private slots:
    void everyLayerAndHeadInEveryFormat_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("format");
        for (const char* fixture : {"gpt2-tiny", "bert-tiny"})
            for (const char* format : {"png", "svg", "pdf"})
                QTest::addRow("%s %s", fixture, format) << QString::fromLatin1(fixture) << QString::fromLatin1(format);
    }
    void everyLayerAndHeadInEveryFormat()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, format);
        const Expected expected = readExpected(fixture);
        QTemporaryDir dir;
        const QString path = dir.filePath("model." + format);
        const QSize size(1000, 700);
        const ProgramRun run = runProgram({"--model", modelFixture(fixture), "--token-ids", expected.ids, "--view",
                                           "model", "--export", path, "--size", "1000x700"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QVERIFY(run.err.isEmpty());
        QImage picture;
        if (format == "png") {
            picture = QImage(path);
        } else if (format == "svg") {
            QString error = convert("rsvg-convert", {"-b", "white", "-o", path + ".png", path});
            QVERIFY2(error.isEmpty(), qPrintable(error));
            picture = QImage(path + ".png");
        } else {
            QString error = convert("pdftoppm", {"-r", "96", "-singlefile", "-png", path, path});
            QVERIFY2(error.isEmpty(), qPrintable(error));
            picture = QImage(path + ".png");
        }
        QCOMPARE(picture.size(), size);
        picture = picture.convertToFormat(QImage::Format_RGB32);

        // Where the cells are: the painter's layout for L x H heads of T tokens (it depends on
        // nothing else). The colours come from the expected weights alone.
        auto shape = std::make_shared<ModelRun>();
        shape->token_ids.assign(size_t(expected.tokens()), 0);
        shape->attention = AttentionMaps(expected.layers(), expected.heads(), expected.tokens(), expected.causal);
        ModelGridPainter painter;
        painter.setRun(shape);
        const ModelGridPainter::Layout layout = painter.layoutFor(QSizeF(size));
        QCOMPARE(layout.thumbnails.size(), expected.layers() * expected.heads());
        // The top of the scale: the largest weight of the rows that see more than one key.
        double top = 0.0;
        for (const auto& layer : expected.attention)
            for (const auto& head : layer)
                for (int q = expected.causal ? 1 : 0; q < expected.tokens(); ++q)
                    for (double w : head[size_t(q)])
                        top = std::max(top, w);
        const int t = expected.tokens();
        int checked = 0;
        // A hatch pixel: the grey of Hatch, its line's, or (SVG and PDF renderers antialias the
        // lines) a grey between them.
        const auto hatchGrey = [](QRgb c) {
            const int r = qRed(c);
            return std::abs(r - qGreen(c)) <= 2 && std::abs(r - qBlue(c)) <= 2 && r >= Hatch::line().red() - 2 &&
                   r <= Hatch::fill().red() + 2;
        };
        for (int l = 0; l < expected.layers(); ++l)
            for (int h = 0; h < expected.heads(); ++h) {
                const QRectF rect = layout.thumbnails[l * expected.heads() + h];
                int line_pixels = 0;  // in the masked triangle, away from the cells' edges
                for (int y = int(rect.top()) + 1; expected.causal && y < int(rect.bottom()) - 1; ++y)
                    for (int x = int(rect.left()) + 1; x < int(rect.right()) - 1; ++x) {
                        const double q = (y + 0.5 - rect.top()) * t / rect.height();  // pixel centre, in cells
                        const double k = (x + 0.5 - rect.left()) * t / rect.width();
                        // Masked cells only, 2 pixels away from any cell edge (renderers round edges).
                        const double margin = 2.0 * t / rect.width();
                        const auto nearEdge = [margin](double v) {
                            return v - std::floor(v) < margin || std::ceil(v) - v < margin;
                        };
                        if (std::floor(k) <= std::floor(q) || nearEdge(q) || nearEdge(k))
                            continue;
                        const QRgb c = picture.pixel(x, y);
                        QVERIFY2(hatchGrey(c), qPrintable(QStringLiteral("layer %1 head %2: #%3 at (%4, %5) in the "
                                                                         "masked triangle")
                                                              .arg(l)
                                                              .arg(h)
                                                              .arg(c & 0xffffff, 6, 16, QChar('0'))
                                                              .arg(x)
                                                              .arg(y)));
                        line_pixels += qRed(c) < Hatch::fill().red() - 30;
                    }
                QVERIFY2(!expected.causal || line_pixels > 0, "the masked cells are not hatched");
                for (int q = 0; q < t; ++q)
                    for (int k = 0; k < t; ++k) {
                        const QPoint centre(int(rect.left() + (k + 0.5) * rect.width() / t),
                                            int(rect.top() + (q + 0.5) * rect.height() / t));
                        const QRgb found = picture.pixel(centre);
                        const bool masked = expected.causal && k > q;
                        const double w = expected.attention[size_t(l)][size_t(h)][size_t(q)][size_t(k)];
                        // Float32 weights may sit on the other side of a colour level than the
                        // float64 ones: either neighbouring level is right. Renderers of SVG and
                        // PDF round colours by at most 1.
                        if (masked) {
                            QVERIFY(hatchGrey(found));
                            ++checked;
                            continue;
                        }
                        const int distance = std::min(
                            {channelDistance(found, ModelGridPainter::colorOf(ColorMaps::Map::Viridis, w, top)),
                             channelDistance(found, ModelGridPainter::colorOf(ColorMaps::Map::Viridis, w + 1e-5, top)),
                             channelDistance(found,
                                             ModelGridPainter::colorOf(ColorMaps::Map::Viridis, w - 1e-5, top))});
                        QVERIFY2(distance <= 1, qPrintable(QStringLiteral("layer %1 head %2 cell (%3, %4) weight %5: "
                                                                          "found #%6 at (%7, %8)")
                                                               .arg(l)
                                                               .arg(h)
                                                               .arg(q)
                                                               .arg(k)
                                                               .arg(w)
                                                               .arg(found & 0xffffff, 6, 16, QChar('0'))
                                                               .arg(centre.x())
                                                               .arg(centre.y())));
                        ++checked;
                    }
            }
        QCOMPARE(checked, expected.layers() * expected.heads() * t * t);
    }

    void shapesOfTheWholeModel_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("gpt2-tiny") << "gpt2-tiny";
        QTest::newRow("bert-tiny") << "bert-tiny";
    }
    void shapesOfTheWholeModel()
    {
        QFETCH(QString, fixture);
        QFile file(modelFixture(fixture) + "/config.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto config = ModelConfig::fromJson(file.readAll());
        QVERIFY(config);
        const ModelParameterCounts counts = ModelParameterCounts::of(config.value());
        QTemporaryDir dir;
        const QString path = dir.filePath("shapes.svg");
        const ProgramRun run = runProgram(
            {"--model", modelFixture(fixture), "--token-ids", "5,6,7", "--view", "model-shapes", "--export", path});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QFile svg(path);
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(svg.readAll());
        // The whole chain: its total, the blocks' count and the input's length, not one layer's diagram.
        QVERIFY(text.contains(ShapeData::formatCount(counts.total())));
        QVERIFY(text.contains(QStringLiteral("× L = %1 blocks").arg(config->num_layers)));
        QVERIFY(text.contains(QStringLiteral("(T) = (3)")));
        QVERIFY(text.contains(QStringLiteral("last hidden state")));

        // --view shapes keeps the contract's meaning: the selected layer's attention, not the chain.
        const QString layer_path = dir.filePath("layer-shapes.svg");
        const ProgramRun layer = runProgram({"--model", modelFixture(fixture), "--token-ids", "5,6,7", "--layer", "1",
                                             "--view", "shapes", "--export", layer_path});
        QVERIFY2(layer.exit_code == 0, layer.err.constData());
        QFile layer_svg(layer_path);
        QVERIFY(layer_svg.open(QIODevice::ReadOnly));
        const QString layer_text = QString::fromUtf8(layer_svg.readAll());
        QVERIFY(!layer_text.contains(QStringLiteral("× L = %1 blocks").arg(config->num_layers)));
        QVERIFY(!layer_text.contains(QStringLiteral("last hidden state")));
    }

    void modelShapesNeedsAModel()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("chain.png");
        const QString problem =
            refusalProblem(runProgram({"--view", "model-shapes", "--export", path}), "error: --view model-shapes: needs --model");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(!QFile::exists(path));
    }

    void modelViewNeedsAModel()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("model.png");
        const QString problem =
            refusalProblem(runProgram({"--view", "model", "--export", path}), "error: --view model: needs --model");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(!QFile::exists(path));
    }
};

REGISTER_TEST_SUITE(TestCliModelView, QApplication)
#include "test_cli_model_view.moc"
