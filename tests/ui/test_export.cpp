// Pictures and data files: the requested size and format, valid content, atomic writes, errors.
#include "app/CommandLine.h"
#include "app/HeadlessRunner.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/report/JsonReport.h"
#include "tests/support/TestSuite.h"
#include "ui/export/DataExporter.h"
#include "ui/export/ViewExporter.h"

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <QtEndian>

#include <cstring>

using namespace attn;

class TestExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<AttentionResult> m_result;

    QStringList entries() const
    {
        return QDir(m_dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
    }

private slots:
    void initTestCase()
    {
        RunSettings config;
        config.causal = true;
        auto result = AttentionPipeline::run(config, RunSettings::defaultSentence());
        QVERIFY2(result.ok(), qPrintable(result.error()));
        m_result = std::make_unique<AttentionResult>(std::move(result).value());
    }

    void cleanup()
    {
        for (const QString& name : entries())
            QFile::remove(m_dir.filePath(name));
    }

    void pngHasTheRequestedSize_data()
    {
        QTest::addColumn<int>("view");
        QTest::addColumn<QSize>("size");
        QTest::addRow("grid 1200x900") << int(View::Grid) << QSize(1200, 900);
        QTest::addRow("grid 640x480") << int(View::Grid) << QSize(640, 480);
        QTest::addRow("head 800x800") << int(View::Head) << QSize(800, 800);
    }
    void pngHasTheRequestedSize()
    {
        QFETCH(int, view);
        QFETCH(QSize, size);
        ExportRequest request;
        request.path = m_dir.filePath("view.png");
        request.view = View(view);
        request.head = 3;
        request.size = size;
        const Status status = ViewExporter::exportView(*m_result, request);
        QVERIFY2(status.ok(), qPrintable(status.error()));
        QImage image(request.path);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), size);
        // Not blank: the picture has many colours (heatmaps, text).
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
        QCOMPARE(entries(), QStringList{"view.png"});  // no temporary file left
    }

    void pngScaleMultipliesThePixels()
    {
        const QString path = m_dir.filePath("scaled.png");
        const Status status = ViewExporter::exportPicture(
            path, QSize(300, 200), 2.0,
            [](QPainter* painter, const QRectF& target) { painter->fillRect(target, Qt::red); });
        QVERIFY(status.ok());
        QImage image(path);
        QCOMPARE(image.size(), QSize(600, 400));
        QCOMPARE(image.pixelColor(599, 399), QColor(Qt::red));
        QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), 192);  // 96 picture pixels per inch, doubled
        // Text is laid out in picture pixels: at scale 2 it is twice as many device pixels, and
        // a font given in points is not counted twice (the image is painted at 96 dpi).
        auto textWidth = [](double scale) {
            const QImage text = ViewExporter::toImage(QSize(300, 60), scale, [](QPainter* painter, const QRectF&) {
                QFont font = painter->font();
                font.setPointSize(12);
                painter->setFont(font);
                painter->setPen(Qt::black);
                painter->drawText(QPointF(4, 40), QStringLiteral("attention"));
            });
            int right = 0;
            for (int y = 0; y < text.height(); ++y)
                for (int x = 0; x < text.width(); ++x)
                    if (qGray(text.pixel(x, y)) < 128)
                        right = std::max(right, x);
            return right;
        };
        const int single = textWidth(1.0);
        const int doubled = textWidth(2.0);
        QVERIFY2(std::abs(doubled - 2 * single) <= 6, qPrintable(QStringLiteral("%1 vs %2").arg(doubled).arg(single)));
    }

    void svgIsValidAndSized()
    {
        ExportRequest request;
        request.path = m_dir.filePath("grid.svg");
        request.size = QSize(1000, 700);
        const Status status = ViewExporter::exportView(*m_result, request);
        QVERIFY2(status.ok(), qPrintable(status.error()));
        QSvgRenderer renderer(request.path);
        QVERIFY(renderer.isValid());
        QCOMPARE(renderer.viewBox(), QRect(0, 0, 1000, 700));
        QFile file(request.path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray svg = file.readAll();
        QVERIFY(svg.contains("head 0"));  // titles are text, not pixels
        QVERIFY(svg.contains("head 7"));
    }

    void pdfIsValidAndSized()
    {
        ExportRequest request;
        request.path = m_dir.filePath("head.pdf");
        request.view = View::Head;
        request.size = QSize(800, 600);
        const Status status = ViewExporter::exportView(*m_result, request);
        QVERIFY2(status.ok(), qPrintable(status.error()));
        QFile file(request.path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray pdf = file.readAll();
        QVERIFY(pdf.startsWith("%PDF-"));
        QVERIFY(pdf.trimmed().endsWith("%%EOF"));
        // The one convention: a pixel is 1/96 inch, 0.75 pt; 800 x 600 pixels are 600 x 450 points.
        static const QRegularExpression media(QStringLiteral("/MediaBox \\[0 0 ([0-9.]+) ([0-9.]+)\\]"));
        const auto match = media.match(QString::fromLatin1(pdf));
        QVERIFY(match.hasMatch());
        QCOMPARE(qRound(match.captured(1).toDouble()), 600);
        QCOMPARE(qRound(match.captured(2).toDouble()), 450);
    }

    void badPathsReportAndWriteNothing_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("reason");
        QTest::addRow("unknown extension") << "view.bmp"
                                           << "unknown extension";
        QTest::addRow("no extension") << "view"
                                      << "unknown extension";
        QTest::addRow("missing directory") << "missing/view.png"
                                           << "does not exist";
        QTest::addRow("through a file") << "afile.txt/view.png"
                                        << "not a directory";
    }
    void badPathsReportAndWriteNothing()
    {
        QFETCH(QString, name);
        QFETCH(QString, reason);
        QFile file(m_dir.filePath("afile.txt"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("keep");
        file.close();
        ExportRequest request;
        request.path = m_dir.filePath(name);
        const Status status = ViewExporter::exportView(*m_result, request);
        QVERIFY(!status.ok());
        QVERIFY2(status.error().contains(reason), qPrintable(status.error()));
        QVERIFY2(status.error().contains(request.path), qPrintable(status.error()));
        QCOMPARE(entries(), QStringList{"afile.txt"});
    }

    void headOutOfRangeIsAnError()
    {
        ExportRequest request;
        request.path = m_dir.filePath("head.png");
        request.view = View::Head;
        request.head = 8;
        const Status status = ViewExporter::exportView(*m_result, request);
        QVERIFY(!status.ok());
        QVERIFY2(status.error().contains("--head"), qPrintable(status.error()));
        QVERIFY(entries().isEmpty());
    }

    void failedExportKeepsTheExistingFile()
    {
        const QString path = m_dir.filePath("existing.png");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("precious");
        file.close();
        // An impossible size fails before anything is written...
        QVERIFY(!ViewExporter::exportPicture(path, QSize(0, 10), 1.0, [](QPainter*, const QRectF&) {}).ok());
        // ... and so does a data export with an unwritable directory.
        QVERIFY(!DataExporter::exportWeights(*m_result, m_dir.filePath("missing/weights.csv")).ok());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("precious"));
        QCOMPARE(entries(), QStringList{"existing.png"});
        // A successful export replaces it whole.
        QVERIFY(ViewExporter::exportPicture(path, QSize(20, 10), 1.0, [](QPainter*, const QRectF&) {}).ok());
        QCOMPARE(QImage(path).size(), QSize(20, 10));
    }

    void commandLineExportsThroughTheSameCode()
    {
        const QString path = m_dir.filePath("cli.png");
        auto options = CommandLine::parse({"attention-lab", "--export", path, "--view", "head", "--head", "1", "--size",
                                           "700x500", "--causal", "--sentence", "one two three"});
        QVERIFY2(options.ok(), qPrintable(options.error()));
        QString out_text, err_text;
        QTextStream out(&out_text), err(&err_text);
        QCOMPARE(HeadlessRunner::run(options.value(), out, err), 0);
        QVERIFY2(err_text.isEmpty(), qPrintable(err_text));
        QCOMPARE(QImage(path).size(), QSize(700, 500));
        // The shape diagram goes through the same runner, at the size asked for.
        const QString shapes = m_dir.filePath("shapes.png");
        options = CommandLine::parse(
            {"attention-lab", "--export", shapes, "--view", "shapes", "--batch", "4", "--size", "800x600"});
        QVERIFY(options.ok());
        QCOMPARE(HeadlessRunner::run(options.value(), out, err), 0);
        QCOMPARE(QImage(shapes).size(), QSize(800, 600));
        // A head that does not exist: one error line, nothing written.
        const QString refused = m_dir.filePath("refused.png");
        options = CommandLine::parse({"attention-lab", "--export", refused, "--view", "shapes", "--head", "8"});
        QVERIFY(options.ok());
        QVERIFY(HeadlessRunner::run(options.value(), out, err) != 0);
        err.flush();
        QVERIFY2(err_text.startsWith("error: --head 8"), qPrintable(err_text));
        QCOMPARE(err_text.count('\n'), 1);
        QVERIFY(!QFile::exists(refused));
    }

    void csvHasEveryWeight()
    {
        const QString path = m_dir.filePath("weights.csv");
        QVERIFY(DataExporter::exportWeights(*m_result, path).ok());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        const int seq_len = m_result->seqLen();
        QCOMPARE(lines.size(), 1 + 8 * seq_len * seq_len);
        QCOMPARE(lines[0], QString("head,query,query_token,key,key_token,weight"));
        // head 2, query 4, key 1: row 1 + ((2 * T) + 4) * T + 1
        const QStringList fields = lines[1 + (2 * seq_len + 4) * seq_len + 1].split(',');
        QCOMPARE(fields.mid(0, 5), QStringList({"2", "4", "the", "1", "cat"}));
        QCOMPARE(fields[5].toFloat(), m_result->trace.probabilities[2](4, 1));
    }

    // One layer of several (a whole model, a multi-layer file): every line says which.
    void csvOfOneLayerOfSeveralNamesTheLayer()
    {
        AttentionResult layer = *m_result;
        layer.layer_count = 12;
        layer.config.layer = 3;
        const QString path = m_dir.filePath("layer3.csv");
        QVERIFY(DataExporter::exportWeights(layer, path).ok());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        const int seq_len = layer.seqLen();
        QCOMPARE(lines.size(), 1 + 8 * seq_len * seq_len);
        QCOMPARE(lines[0], QString("layer,head,query,query_token,key,key_token,weight"));
        const QStringList fields = lines[1 + (2 * seq_len + 4) * seq_len + 1].split(',');
        QCOMPARE(fields.mid(0, 6), QStringList({"3", "2", "4", "the", "1", "cat"}));
        QCOMPARE(fields[6].toFloat(), layer.trace.probabilities[2](4, 1));
    }

    // Sizes are planned before anything is written: CSV of more than kMaxTextWeights weights
    // (gigabytes of text) is refused with the size it would have and the .npy alternative.
    void csvOfTooManyWeightsIsRefusedBeforeWriting()
    {
        AttentionResult huge = *m_result;
        huge.trace.q = Matrix::Zero(8200, 1);  // 8,200 queries and keys: 67.2 million weights
        huge.trace.k = Matrix::Zero(8200, 1);
        huge.trace.num_heads = 1;
        const QString path = m_dir.filePath("huge.csv");
        const Status refused = DataExporter::exportWeights(huge, path);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().contains(QStringLiteral("67,240,000 weights would be about")) &&
                     refused.error().contains(QStringLiteral("of CSV text: export .npy (269.0 MB) instead")),
                 qPrintable(refused.error()));
        QVERIFY(!QFile::exists(path));
    }

    void jsonHasEveryWeight()
    {
        const QString path = m_dir.filePath("weights.json");
        QVERIFY(DataExporter::exportWeights(*m_result, path).ok());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonObject root = QJsonDocument::fromJson(file.readAll(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(root["tokens"].toArray().size(), m_result->seqLen());
        const QJsonArray attention = root["attention"].toArray();
        QCOMPARE(attention.size(), 8);
        QCOMPARE(float(attention[5].toArray()[6].toArray()[2].toDouble()), m_result->trace.probabilities[5](6, 2));
        QCOMPARE(attention[5].toArray()[2].toArray()[6].toDouble(), 0.0);  // causal
        // One schema for a result: the file is the command line's --json document.
        QCOMPARE(root["config"].toObject()["num_heads"].toInt(), 8);
        QVERIFY(root["config"].toObject()["causal"].toBool());
        QCOMPARE(root["head_metrics"].toArray().size(), 8);
        file.seek(0);
        QCOMPARE(file.readAll(), JsonReport::build(*m_result));
    }

    void npyHasEveryWeight()
    {
        const QString path = m_dir.filePath("weights.npy");
        QVERIFY(DataExporter::exportWeights(*m_result, path).ok());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY(bytes.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
        const int header_length = qFromLittleEndian<quint16>(bytes.constData() + 8);
        QCOMPARE((10 + header_length) % 64, 0);
        const QByteArray header = bytes.mid(10, header_length);
        const int seq_len = m_result->seqLen();
        QVERIFY2(header.contains(QStringLiteral("'shape': (8, %1, %1)").arg(seq_len).toLatin1()), header.constData());
        QVERIFY(header.contains("'descr': '<f4'"));
        QCOMPARE(bytes.size(), 10 + header_length + 8 * seq_len * seq_len * 4);
        // Element [7][5][3] in C order.
        float value = 0;
        std::memcpy(&value, bytes.constData() + 10 + header_length + ((7 * seq_len + 5) * seq_len + 3) * 4, 4);
        QCOMPARE(value, m_result->trace.probabilities[7](5, 3));
    }
};

REGISTER_TEST_SUITE(TestExport, QApplication)
#include "test_export.moc"
