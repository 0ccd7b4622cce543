// HeatmapPlot: the matrix -> colour-map mapping, orientation, masks, ranges and rendering.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/heatmap/ColorBar.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/Hatch.h"
#include "ui/heatmap/HeatmapCells.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"

#include <qcustomplot.h>

#include <QPainter>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <memory>

using namespace attn;

class TestHeatmapPlot : public QObject {
    Q_OBJECT

    // A non-symmetric, non-square matrix: a transposition or a flip changes what is read back.
    static Matrix sample()
    {
        Matrix m(2, 3);  // (rows = queries, columns = keys)
        m << 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f;
        return m;
    }

private slots:
    void makeColorMapDataIsTheOneMapping()
    {
        // The function itself, on QCustomPlot's own data object: cell(key, value) = A[value][key],
        // cells centred on the integers, NaN where masked.
        const Matrix a = sample();
        MaskMatrix mask = MaskMatrix::Constant(2, 3, false);
        mask(1, 2) = true;
        std::unique_ptr<QCPColorMapData> data(makeColorMapData(a, mask));
        QCOMPARE(data->keySize(), 3);
        QCOMPARE(data->valueSize(), 2);
        QCOMPARE(data->keyRange(), QCPRange(0, 2));
        QCOMPARE(data->valueRange(), QCPRange(0, 1));
        for (int query = 0; query < 2; ++query)
            for (int key = 0; key < 3; ++key) {
                if (query == 1 && key == 2)
                    QVERIFY(std::isnan(data->cell(key, query)));
                else
                    QCOMPARE(data->cell(key, query), double(a(query, key)));
            }
        // Coordinates map back to the same cells.
        int key = -1, value = -1;
        data->coordToCell(1.0, 1.0, &key, &value);
        QCOMPARE(key, 1);
        QCOMPARE(value, 1);
        QCOMPARE(data->dataBounds(), QCPRange(double(0.1f), double(0.5f)));  // the masked 0.6 is not data
    }

    void cellKeyQueryHoldsRowQueryColumnKey()
    {
        HeatmapPlot plot;
        const Matrix a = sample();
        plot.setMatrix(a, {"q0", "q1"}, {"k0", "k1", "k2"});
        QCOMPARE(plot.plottedKeySize(), 3);
        QCOMPARE(plot.plottedValueSize(), 2);
        for (int query = 0; query < 2; ++query)
            for (int key = 0; key < 3; ++key)
                QCOMPARE(plot.plottedCell(key, query), double(a(query, key)));
        QCOMPARE(plot.rowLabel(1), QString("q1"));
        QCOMPARE(plot.columnLabel(2), QString("k2"));
    }

    void singleRowAndColumnStayExact()
    {
        // QCustomPlot draws a 1-cell dimension with zero width: it is stored as two equal cells.
        HeatmapPlot plot;
        Matrix one(1, 1);
        one << 0.75f;
        plot.setMatrix(one, {"a"}, {"a"});
        QCOMPARE(plot.plottedCell(0, 0), 0.75);
        QCOMPARE(plot.plottedCell(1, 1), 0.75);
    }

    void maskedCellsAreNotZero()
    {
        HeatmapPlot plot;
        Matrix a(2, 2);
        a << 1.0f, 0.0f, 0.5f, 0.5f;
        MaskMatrix mask(2, 2);
        mask << false, true, false, false;
        plot.setMatrix(a, {}, {}, mask);
        QVERIFY(std::isnan(plot.plottedCell(1, 0)));  // key 1 of query 0: masked
        QCOMPARE(plot.plottedCell(0, 0), 1.0);
        QCOMPARE(plot.plottedCell(1, 1), 0.5);
        QVERIFY(plot.isMasked(0, 1));
        QVERIFY(!plot.isMasked(1, 0));
        // Without a mask the same zero is plotted as a number.
        plot.setMatrix(a, {}, {});
        QCOMPARE(plot.plottedCell(1, 0), 0.0);
    }

    void newMatricesReplaceTheOldOnes()
    {
        // A keystroke refills the plot's cells in place when the shape is unchanged and
        // reallocates them when it changes: either way the plot holds exactly the latest matrix,
        // labels and mask.
        HeatmapPlot plot;
        const Matrix a = sample();
        plot.setMatrix(a, {"q0", "q1"}, {"k0", "k1", "k2"});
        const Matrix b = (1.0f - a.array()).matrix();  // same shape, other values
        MaskMatrix causal = MaskMatrix::Constant(2, 3, false);
        causal(0, 1) = causal(0, 2) = causal(1, 2) = true;
        plot.setMatrix(b, {"x0", "x1"}, {"y0", "y1", "y2"}, causal);
        QVERIFY(plot.hasMask());
        QCOMPARE(plot.plottedCell(0, 1), double(b(1, 0)));
        QVERIFY(std::isnan(plot.plottedCell(2, 1)));
        QCOMPARE(plot.rowLabel(1), QString("x1"));
        QCOMPARE(plot.columnLabel(2), QString("y2"));
        Matrix c(3, 2);  // (rows, columns): a new shape
        c << 1, 2, 3, 4, 5, 6;
        plot.setMatrix(c, {}, {}, MaskMatrix::Constant(3, 2, false));
        QVERIFY(!plot.hasMask());  // an all-false mask is no mask
        QCOMPARE(plot.plottedKeySize(), 2);
        QCOMPARE(plot.plottedValueSize(), 3);
        for (int row = 0; row < 3; ++row)
            for (int column = 0; column < 2; ++column)
                QCOMPARE(plot.plottedCell(column, row), double(c(row, column)));
        QCOMPARE(plot.rowLabel(2), QString("2"));
        plot.setMatrix(a, {}, {});  // and back
        QCOMPARE(plot.plottedCell(2, 1), double(a(1, 2)));
        QVERIFY(!plot.isMasked(0, 2));
    }

    void oneTokenThenTwoFillsEveryCell()
    {
        // One token is stored as 2 x 2 equal cells over -0.25..0.25 (see makeColorMapData); two
        // tokens are also 2 x 2 cells, but over 0..1. Typing "x y" goes from one to the other:
        // the cells must not be refilled in place into the one-token geometry (the 2 x 2 colours
        // squeezed into the top-left quarter, the bottom row white).
        HeatmapPlot plot;
        const QSize size(300, 300);
        plot.resize(size);
        plot.setCellText(HeatmapPlot::CellText::Never);
        plot.setValueRange(0.0, 1.0);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        Matrix one(1, 1);
        one << 1.0f;
        plot.setMatrix(one, {"x"}, {"x"});
        plot.replotNow();
        Matrix two(2, 2);  // (queries, keys)
        two << 0.0f, 1.0f, 1.0f, 0.0f;
        plot.setMatrix(two, {"x", "y"}, {"x", "y"});
        plot.replotNow();
        const QImage screen = plot.grab().toImage();
        const QImage exported = plot.toImage(size);
        for (const QImage& image : {screen, exported})
            for (int row = 0; row < 2; ++row)
                for (int column = 0; column < 2; ++column) {
                    QRect cell;  // the widget pixels of the cell
                    for (int y = 0; y < size.height(); ++y)
                        for (int x = 0; x < size.width(); ++x) {
                            int r = 0, c = 0;
                            if (plot.cellAt(QPoint(x, y), &r, &c) && r == row && c == column)
                                cell |= QRect(x, y, 1, 1);
                        }
                    QVERIFY(!cell.isEmpty());
                    const QColor expected = ColorMaps::colorAt(ColorMaps::Map::Viridis, two(row, column));
                    const QColor found = image.pixelColor(cell.center() * image.devicePixelRatio());
                    // 8 levels: QCustomPlot's 256-level gradient against the exact stop colour.
                    QVERIFY2(std::abs(found.red() - expected.red()) <= 8 &&
                                 std::abs(found.green() - expected.green()) <= 8 &&
                                 std::abs(found.blue() - expected.blue()) <= 8,
                             qPrintable(QStringLiteral("cell (%1, %2): %3, expected %4")
                                            .arg(row)
                                            .arg(column)
                                            .arg(found.name(), expected.name())));
                }
    }

    // Under the causal mask row 0 sees only key 0: its weight 1 would set the shared scale and
    // leave every other cell dark. The default scale leaves such rows out and the colour bar
    // says so; "all cells" is the plain 0 .. largest weight.
    void causalScaleLeavesOutOneKeyRows_data()
    {
        QTest::addColumn<bool>("causal");
        QTest::addRow("causal") << true;
        QTest::addRow("not causal") << false;
    }
    void causalScaleLeavesOutOneKeyRows()
    {
        QFETCH(bool, causal);
        RunSettings config;
        config.causal = causal;
        auto computed = AttentionPipeline::run(config, RunSettings::defaultSentence());
        QVERIFY2(computed.ok(), qPrintable(computed.error()));
        const auto result = std::make_shared<const AttentionResult>(std::move(computed).value());
        double largest = 0.0, largest_beyond_row_0 = 0.0;
        for (const Matrix& weights : result->trace.weights) {  // (queries, keys)
            largest = std::max(largest, double(weights.maxCoeff()));
            largest_beyond_row_0 =
                std::max(largest_beyond_row_0, double(weights.bottomRows(weights.rows() - 1).maxCoeff()));
        }
        const HeatmapData data = HeatmapData::fromResult(*result);
        QCOMPARE(data.top(ColorScale::AllCells), largest);
        QCOMPARE(data.one_key_row_count, causal ? 1 : 0);
        if (causal) {
            QCOMPARE(largest, 1.0);  // row 0, by the mask
            QCOMPARE(data.top(ColorScale::WithoutOneKeyRows), largest_beyond_row_0);
            QVERIFY(largest_beyond_row_0 < 0.95);
        } else {
            QCOMPARE(data.top(ColorScale::WithoutOneKeyRows), largest);
        }

        HeadsGrid grid;
        grid.resize(900, 700);
        grid.setResult(result);
        QCOMPARE(grid.colorScale(), ColorScale::WithoutOneKeyRows);  // the default
        QCOMPARE(grid.plot(3)->valueHigh(), data.top(ColorScale::WithoutOneKeyRows));
        QCOMPARE(grid.colorBar()->high(), data.top(ColorScale::WithoutOneKeyRows));
        QCOMPARE(grid.colorBar()->note().contains(QStringLiteral("row 0")), causal);
        grid.setColorScale(ColorScale::AllCells);
        QCOMPARE(grid.plot(3)->valueHigh(), largest);
        QCOMPARE(grid.colorBar()->high(), largest);
        QVERIFY(grid.colorBar()->note().isEmpty());

        HeadView view;
        view.setResult(result);
        view.setHead(2);
        QCOMPARE(view.plot()->valueHigh(), data.top(ColorScale::WithoutOneKeyRows));
        view.setColorScale(ColorScale::AllCells);
        QCOMPARE(view.plot()->valueHigh(), largest);
    }

    void hatchFillCoversExactlyTheMaskedCells()
    {
        // On a raster device (the screen) the masked rectangles are filled as one winding path,
        // without the O(n^2) merge into one outline (QPainterPath::simplified) that vector output
        // still gets. A causal staircase with fractional edges: a pixel is grey exactly when its
        // centre lies in one of the rectangles, with no seams between rows.
        QList<QRectF> staircase;
        const double cell = 2.75;  // no edge passes through a pixel centre
        for (int row = 0; row < 38; ++row)
            staircase.append(QRectF(3.3 + (row + 1) * cell, 2.1 + row * cell, (37 - row) * cell, cell));
        QImage image(130, 130, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            Hatch::draw(&painter, staircase, 4.0, false);
        }
        int filled = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QPointF centre(x + 0.5, y + 0.5);
                const bool inside = std::any_of(staircase.begin(), staircase.end(),
                                                [&](const QRectF& rect) { return rect.contains(centre); });
                if (image.pixelColor(x, y) != (inside ? Hatch::fill() : QColor(Qt::white)))
                    QFAIL(qPrintable(
                        QStringLiteral("pixel (%1, %2) should be %3").arg(x).arg(y).arg(inside ? "grey" : "white")));
                filled += inside;
            }
        QVERIFY(filled > 4500);  // about half of the 104.5 x 104.5 square
    }

    void rangesFixedAutoAndSymmetric()
    {
        HeatmapPlot plot;
        plot.setMatrix(sample(), {}, {});
        QCOMPARE(plot.valueLow(), double(0.1f));
        QCOMPARE(plot.valueHigh(), double(0.6f));
        plot.setValueRange(0.0, 1.0);
        plot.setMatrix(sample(), {}, {});
        QCOMPARE(plot.valueLow(), 0.0);
        QCOMPARE(plot.valueHigh(), 1.0);
        Matrix signed_values(1, 2);
        signed_values << -0.5f, 2.0f;
        plot.setColorMap(ColorMaps::Map::Diverging);
        plot.setAutoValueRange();
        plot.setMatrix(signed_values, {}, {});
        QCOMPARE(plot.valueLow(), -2.0);
        QCOMPARE(plot.valueHigh(), 2.0);
    }

    void firstRowIsOnTopAndFirstColumnOnTheLeft()
    {
        HeatmapPlot plot;
        plot.resize(400, 300);
        plot.setMatrix(sample(), {}, {});
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.replotNow();
        int first_row = -1, last_row = -1;
        for (int y = 0; y < plot.height(); ++y) {
            int row = 0, column = 0;
            if (plot.cellAt(QPoint(plot.width() / 2, y), &row, &column)) {
                if (first_row < 0)
                    first_row = row;
                last_row = row;
            }
        }
        QCOMPARE(first_row, 0);
        QCOMPARE(last_row, 1);
        int first_column = -1, last_column = -1;
        for (int x = 0; x < plot.width(); ++x) {
            int row = 0, column = 0;
            if (plot.cellAt(QPoint(x, plot.height() / 2), &row, &column)) {
                if (first_column < 0)
                    first_column = column;
                last_column = column;
            }
        }
        QCOMPARE(first_column, 0);
        QCOMPARE(last_column, 2);
    }

    void renderedColoursFollowTheMapAndMaskIsGrey()
    {
        // 2 x 2, values 0 and 1 on the diagonal, one masked cell: sample each cell's centre.
        HeatmapPlot plot;
        const QSize size(400, 400);
        plot.resize(size);
        Matrix a(2, 2);
        a << 0.0f, 0.0f, 0.0f, 1.0f;
        MaskMatrix mask(2, 2);
        mask << false, true, false, false;
        plot.setCellText(HeatmapPlot::CellText::Never);
        plot.setValueRange(0.0, 1.0);
        plot.setMatrix(a, {}, {}, mask);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.replotNow();
        QRect cells[2][2];  // the widget pixels of each cell
        for (int y = 0; y < size.height(); ++y)
            for (int x = 0; x < size.width(); ++x) {
                int row = 0, column = 0;
                if (plot.cellAt(QPoint(x, y), &row, &column))
                    cells[row][column] |= QRect(x, y, 1, 1);
            }
        const QImage image = plot.toImage(size);
        QCOMPARE(image.size(), size);
        auto colour = [&](int row, int column) { return image.pixelColor(cells[row][column].center()); };
        const QColor zero = ColorMaps::colorAt(ColorMaps::Map::Viridis, 0.0);
        const QColor one = ColorMaps::colorAt(ColorMaps::Map::Viridis, 1.0);
        auto near = [](QColor a, QColor b) {
            return std::abs(a.red() - b.red()) <= 6 && std::abs(a.green() - b.green()) <= 6 &&
                   std::abs(a.blue() - b.blue()) <= 6;
        };
        QVERIFY2(near(colour(0, 0), zero), qPrintable(colour(0, 0).name()));
        QVERIFY2(near(colour(1, 1), one), qPrintable(colour(1, 1).name()));
        QVERIFY2(!near(colour(0, 1), zero), qPrintable(colour(0, 1).name()));  // masked: not the colour of 0
        QVERIFY(colour(0, 1).saturation() < 30);                               // neutral grey or its hatch
    }

    void cellTextOnlyWhenReadable()
    {
        HeatmapPlot plot;
        plot.resize(600, 600);
        plot.setMatrix(sample(), {}, {});
        QVERIFY(plot.cellTextVisible());
        Matrix big = Matrix::Constant(200, 200, 0.005f);
        plot.setMatrix(big, {}, {});
        QVERIFY(!plot.cellTextVisible());
        plot.setCellText(HeatmapPlot::CellText::Never);
        plot.setMatrix(sample(), {}, {});
        QVERIFY(!plot.cellTextVisible());
    }

    void clickReportsTheCell()
    {
        HeatmapPlot plot;
        plot.resize(400, 300);
        plot.setMatrix(sample(), {}, {});
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.replotNow();
        QSignalSpy clicked(&plot, &HeatmapPlot::cellClicked);
        QSignalSpy hovered(&plot, &HeatmapPlot::cellHovered);
        QWidget* canvas = plot.findChild<QWidget*>();
        QVERIFY(canvas);
        QPoint target;
        for (int y = 0; y < plot.height() && target.isNull(); ++y)
            for (int x = 0; x < plot.width(); ++x) {
                int row = 0, column = 0;
                if (plot.cellAt(QPoint(x, y), &row, &column) && row == 1 && column == 2) {
                    target = QPoint(x + 5, y + 5);
                    break;
                }
            }
        QVERIFY(!target.isNull());
        QTest::mouseMove(canvas, target);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, target);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked[0][0].toInt(), 1);
        QCOMPARE(clicked[0][1].toInt(), 2);
        QVERIFY(hovered.count() >= 1);
        QCOMPARE(hovered.last()[2].toDouble(), double(0.6f));
    }
};

QTEST_MAIN(TestHeatmapPlot)
#include "test_heatmap_plot.moc"
