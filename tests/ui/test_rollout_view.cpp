// The Rollout tab (RolloutView, RolloutPainter): the matrix it draws is AttentionRollout of the
// run with the chosen fusion, residual weight and layer; the bars are the chosen token's row; the
// window has the tab (Ctrl+8) and --view rollout exports the same picture.
#include "core/analysis/AttentionFlow.h"
#include "core/analysis/AttentionRollout.h"
#include "core/model/TransformerModel.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "ui/export/ViewExporter.h"
#include "ui/views/rollout/RolloutView.h"

#include <QComboBox>
#include <QImage>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace attn;
using namespace attn::testing;

namespace {

bool sameMatrix(const MatrixD& a, const MatrixD& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a - b).cwiseAbs().maxCoeff() == 0.0;
}

int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

}  // namespace

class TestRolloutView : public QObject {
    Q_OBJECT

    std::shared_ptr<const ModelRun> m_causal;   // gpt2-tiny
    std::shared_ptr<const ModelRun> m_encoder;  // bert-tiny

    static std::shared_ptr<const ModelRun> runOf(const char* fixture, const std::vector<int>& ids)
    {
        auto model = TransformerModel::load(fixturesPath("models/") + QLatin1String(fixture));
        if (!model)
            return nullptr;
        auto run = (*model)->forward(ids);
        return run ? std::make_shared<const ModelRun>(std::move(run).value()) : nullptr;
    }

private slots:
    void initTestCase()
    {
        m_causal = runOf("gpt2-tiny", {8086, 1463, 2125, 470, 477, 345, 761, 11, 475, 340});
        m_encoder = runOf("bert-tiny", {101, 1996, 4937, 2938, 2006, 1996, 13523, 102});
        QVERIFY(m_causal && m_encoder);
    }

    void drawsTheRolloutOfTheChosenOptions()
    {
        RolloutView view;
        view.resize(1000, 600);
        const QStringList tokens = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
        // The view computes on a worker when it is drawn (or asked), never on the GUI thread.
        const auto settled = [&view] {
            view.bringUpToDate();
            return !view.painter().isStale();
        };
        view.setModelRun(m_causal, tokens);
        QVERIFY(view.painter().isStale());
        QVERIFY(view.painter().rollout().size() == 0);  // not computed while painting or asking
        QTRY_VERIFY(settled());
        // Defaults: mean, w = 0.5, after the last layer; a decoder's last token in the bars.
        QCOMPARE(view.layerBox()->value(), 1);
        QCOMPARE(view.queryBox()->value(), 9);
        QCOMPARE(view.painter().query(), 9);
        QVERIFY(sameMatrix(view.painter().rollout(), *AttentionRollout::compute(m_causal->attention, {})));

        view.residualSlider()->setValue(25);
        view.fusionBox()->setCurrentIndex(view.fusionBox()->findData(QStringLiteral("max")));
        view.layerBox()->setValue(0);
        QTRY_VERIFY(settled());
        QCOMPARE(view.painter().options().residual_weight, 0.25);
        QCOMPARE(view.painter().options().fusion, HeadFusion::Max);
        QVERIFY(sameMatrix(view.painter().rollout(),
                           *AttentionRollout::compute(m_causal->attention, {HeadFusion::Max, 0.25, 0})));
        view.queryBox()->setValue(3);
        QCOMPARE(view.painter().query(), 3);
        // Flow instead of rollout: through every layer, with the same fusion and residual weight.
        view.methodBox()->setCurrentIndex(1);
        QTRY_VERIFY(settled());
        QVERIFY(view.painter().isFlow());
        QVERIFY(sameMatrix(view.painter().rollout(),
                           *AttentionFlow::compute(m_causal->attention, {HeadFusion::Max, 0.25, -1})));
        view.methodBox()->setCurrentIndex(0);

        // A new run is rolled out only when it is looked at: a hidden tab costs nothing per keystroke.
        // A new run of the same model keeps the choices; an encoder's bars start at [CLS].
        view.setModelRun(m_encoder, {"[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"});
        QVERIFY(view.painter().isStale());
        QTRY_VERIFY(settled());
        QCOMPARE(view.painter().options().fusion, HeadFusion::Max);
        QVERIFY(sameMatrix(view.painter().rollout(),
                           *AttentionRollout::compute(m_encoder->attention, {HeadFusion::Max, 0.25, 0})));

        QImage image(view.canvas()->size(), QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        view.painter().paint(painter, QRectF(QPointF(0, 0), QSizeF(image.size())));
        painter.end();
        QVERIFY(distinctColours(image) > 20);  // a heatmap, bars and labels, not a blank page
        view.clearModel();
        QVERIFY(!view.painter().hasRun());
    }

    void exportsPngSvgAndPdf()
    {
        QTemporaryDir dir;
        for (const char* format : {"png", "svg", "pdf"}) {
            ExportRequest request;
            request.path = dir.filePath(QStringLiteral("rollout.") + QLatin1String(format));
            request.size = QSize(900, 500);
            request.view = View::Rollout;
            request.rollout = {HeadFusion::Mean, 0.5, -1};
            QVERIFY(ViewExporter::exportRun(*m_causal, ModelConfig(), {}, "gpt2-tiny", request).ok());
            QVERIFY(QFileInfo(request.path).size() > 1000);
        }
        const QImage png(dir.filePath("rollout.png"));
        QCOMPARE(png.size(), QSize(900, 500));
        QVERIFY(distinctColours(png) > 20);
        ExportRequest request;
        request.path = dir.filePath("late.png");
        request.view = View::Rollout;
        request.rollout = {HeadFusion::Mean, 0.5, 5};
        const Status late = ViewExporter::exportRun(*m_causal, ModelConfig(), {}, "", request);
        QVERIFY(!late.ok());
        QVERIFY(late.error().contains("out of range"));
        QVERIFY(!QFileInfo::exists(request.path));
    }

    // The export has a colour scale under the matrix (a long run of map colours low in the
    // picture: the matrix ends above 70 % of the height) and writes the values in large cells.
    void exportHasAColourScale()
    {
        QTemporaryDir dir;
        ExportRequest request;
        request.path = dir.filePath(QStringLiteral("rollout.png"));
        request.size = QSize(1200, 900);
        request.view = View::Rollout;
        request.rollout = {HeadFusion::Mean, 0.5, -1};
        QVERIFY(ViewExporter::exportRun(*m_causal, ModelConfig(), {}, "gpt2-tiny", request).ok());
        const QImage png(request.path);
        int lowest_run = -1;  // the lowest pixel row with 300 saturated pixels side by side
        for (int y = 0; y < png.height(); ++y) {
            int run = 0;
            for (int x = 0; x < png.width() && run < 300; ++x)
                run = QColor(png.pixel(x, y)).hsvSaturation() > 60 ? run + 1 : 0;
            if (run >= 300)
                lowest_run = y;
        }
        QVERIFY2(lowest_run > png.height() * 0.72, qPrintable(QString::number(lowest_run)));
    }
};

REGISTER_TEST_SUITE(TestRolloutView, QApplication)
#include "test_rollout_view.moc"
