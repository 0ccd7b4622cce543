// HeatmapPlot: the matrix -> colour-map mapping, orientation, masks, ranges and rendering.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "tests/support/TestSuite.h"
#include "ui/heatmap/ColorBar.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/Hatch.h"
#include "ui/heatmap/HeatmapCells.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/HeatmapPlot.h"
#include "ui/heatmap/HeatmapReduction.h"
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
        for (const Matrix& weights : result->trace.probabilities) {  // (queries, keys)
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

    // ---- Reduced heatmaps: more cells than pixels ----------------------------------------------

    void reduceCellsTakesEachBlocksLargestOrMean()
    {
        // 5 x 7 in blocks of 3: drawn (2, 3), the last row and column of blocks partial.
        Matrix a(5, 7);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 7; ++j)
                a(i, j) = float(10 * i + j);  // non-symmetric: a transposition is seen
        QCOMPARE(reductionFactor(5, 7, 3), 3);
        QCOMPARE(reductionFactor(5, 7, 7), 1);
        const ReducedMatrix largest = reduceCells(a, {}, 3, CellReduction::Max);
        QCOMPARE(largest.blocks, BlockShape::square(3));
        QCOMPARE(largest.values.rows(), Eigen::Index(2));
        QCOMPARE(largest.values.cols(), Eigen::Index(3));
        QCOMPARE(largest.values(0, 0), 22.0f);  // rows 0-2, columns 0-2
        QCOMPARE(largest.values(0, 2), 26.0f);  // rows 0-2, column 6
        QCOMPARE(largest.values(1, 0), 42.0f);  // rows 3-4, columns 0-2
        QCOMPARE(largest.values(1, 1), 45.0f);
        QCOMPARE(largest.mask.size(), Eigen::Index(0));  // nothing masked: no mask
        const ReducedMatrix mean = reduceCells(a, {}, 3, CellReduction::Mean);
        QCOMPARE(mean.values(0, 0), 11.0f);  // mean of 0..2, 10..12, 20..22
        QCOMPARE(mean.values(1, 2), 41.0f);  // mean of 36, 46
    }

    void reducedBlocksIgnoreMaskedCellsAndHideOnlyFullyMaskedOnes()
    {
        // A causal 4 x 4 in blocks of 2: the top-right block is all masked, the diagonal ones
        // keep their visible cells only.
        Matrix a = Matrix::Constant(4, 4, 9.0f);  // masked weights are not what is drawn
        MaskMatrix mask = MaskMatrix::Constant(4, 4, false);
        for (int i = 0; i < 4; ++i)
            for (int j = i + 1; j < 4; ++j)
                mask(i, j) = true;
        a(0, 0) = 1.0f;
        a(1, 0) = 0.5f;
        a(1, 1) = 0.25f;
        const ReducedMatrix reduced = reduceCells(a, mask, 2, CellReduction::Mean);
        QCOMPARE(reduced.mask.rows(), Eigen::Index(2));
        QVERIFY(reduced.mask(0, 1));
        QVERIFY(!reduced.mask(0, 0) && !reduced.mask(1, 0) && !reduced.mask(1, 1));
        QCOMPARE(reduced.values(0, 0), float((1.0 + 0.5 + 0.25) / 3.0));  // (0, 1) is masked
    }

    void aLargeMatrixIsDrawnReducedWithItsOwnLabelsAndCells()
    {
        // 2,500 queries x 2,100 keys: factor 3 brings both sides under kReducedSide.
        const int rows = 2500, columns = 2100;
        Matrix a(rows, columns);
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < columns; ++j)
                a(i, j) = float((i * 7 + j * 3) % 101) / 100.0f;
        a(1500, 30) = 5.0f;  // one strong cell: its block shows it
        QStringList row_labels, column_labels;
        for (int i = 0; i < rows; ++i)
            row_labels.append(QStringLiteral("q%1").arg(i));
        for (int j = 0; j < columns; ++j)
            column_labels.append(QStringLiteral("k%1").arg(j));
        HeatmapPlot plot;
        plot.resize(900, 800);
        plot.setMatrix(a, row_labels, column_labels);
        QCOMPARE(plot.reductionFactor(), 3);
        QCOMPARE(plot.fullRowCount(), rows);
        QCOMPARE(plot.fullColumnCount(), columns);
        QCOMPARE(plot.plottedKeySize(), 700);                    // ceil(2100 / 3)
        QCOMPARE(plot.plottedValueSize(), 834);                  // ceil(2500 / 3)
        QCOMPARE(plot.plottedCell(10, 500), 5.0);                // block (500, 10) holds cell (1500, 30)
        QCOMPARE(plot.rowLabel(1500), QStringLiteral("q1500"));  // labels are the matrix's own
        QVERIFY2(plot.reductionNote().contains(QStringLiteral("largest of 3 x 3")), qPrintable(plot.reductionNote()));
        // A selected query outlines the drawn row holding it; the plot reports the query itself.
        plot.setSelection(1500, 30);
        QCOMPARE(plot.selectedRow(), 1500);
        QCOMPARE(plot.selectedColumn(), 30);
        // Back to a small matrix: every cell drawn again.
        plot.setMatrix(sample(), {}, {});
        QCOMPARE(plot.reductionFactor(), 1);
        QCOMPARE(plot.plottedKeySize(), 3);
        QVERIFY(plot.reductionNote().isEmpty());
    }

    void theMeanIsAChoice()
    {
        Matrix a = Matrix::Zero(2048 + 2, 2048 + 2);  // factor 3
        a(0, 0) = 9.0f;
        HeatmapPlot plot;
        plot.setReduction(CellReduction::Mean);
        plot.setMatrix(a, {}, {});
        QCOMPARE(plot.reductionFactor(), 3);
        QCOMPARE(plot.plottedCell(0, 0), 1.0);  // 9 over 9 cells
        QVERIFY(plot.reductionNote().contains(QStringLiteral("mean of 3 x 3")));
    }

    void aReducedPlotReportsTheCellsOfTheMatrixUnderTheMouse()
    {
        const int side = 3000;  // factor 3
        Matrix a = Matrix::Zero(side, side);
        HeatmapPlot plot;
        plot.resize(700, 700);
        plot.setMatrix(a, {}, {});
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.replotNow();
        int row = -1, column = -1;
        bool found = false;
        for (int y = 0; y < plot.height() && !found; ++y)
            for (int x = 0; x < plot.width() && !found; ++x)
                found = plot.cellAt(QPoint(x, y), &row, &column) && row > 2000 && column > 2000;
        QVERIFY(found);
        QCOMPARE(row % 3, 0);  // the first row and column of the drawn cell's block
        QCOMPARE(column % 3, 0);
        QVERIFY(row < side && column < side);
    }
};

REGISTER_TEST_SUITE(TestHeatmapPlot, QApplication)
#include "test_heatmap_plot.moc"
