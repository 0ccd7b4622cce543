// Zoom and pan in a heatmap: the One head view of a 2,000-token head (drawn reduced, blocks of
// 2 x 2) zoomed with the mouse wheel until every cell is drawn, then panned by dragging and reset
// by a double-click; the drawn cells are checked against the weights and the labels against the
// tokens. The window's zoom actions and Compare's zoom are test_window_zoom; the steps both use
// are tests/support/ZoomSteps.h.
#include "tests/support/TestSuite.h"
#include "tests/support/ZoomSteps.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/views/heads/HeadView.h"

#include <QSignalSpy>
#include <QTest>
#include <QThreadPool>
#include <QToolButton>

#include <cmath>
#include <memory>

using namespace attn;
using namespace attn::zoom;

namespace {

// Every visible cell drawn is the weight (NaN where masked), one drawn cell per cell (the drawn
// cells may go beyond the view: a window reduced for a wider view is not reduced again).
bool drawsTheWeights(HeatmapPlot* plot, const Matrix& weights, const MaskMatrix& mask, QString* error)
{
    const QRect cells = plot->visibleCells();
    const CellWindow drawn = plot->drawnWindow();
    const bool covered = drawn.first_row <= cells.top() && drawn.first_column <= cells.left() &&
                         drawn.first_row + drawn.rows > cells.bottom() &&
                         drawn.first_column + drawn.columns > cells.right();
    if (plot->reductionFactor() != 1 || !covered || drawn.rows > HeatmapPlot::kReducedSide ||
        drawn.columns > HeatmapPlot::kReducedSide) {
        *error = QStringLiteral("drawn %1,%2 %3x%4 (factor %5) for visible %6,%7 %8x%9")
                     .arg(drawn.first_row)
                     .arg(drawn.first_column)
                     .arg(drawn.rows)
                     .arg(drawn.columns)
                     .arg(plot->reductionFactor())
                     .arg(cells.y())
                     .arg(cells.x())
                     .arg(cells.height())
                     .arg(cells.width());
        return false;
    }
    for (int row = cells.top(); row <= cells.bottom(); ++row)
        for (int column = cells.left(); column <= cells.right(); ++column) {
            const double plotted = plot->plottedCell(column - drawn.first_column, row - drawn.first_row);
            const bool ok = mask(row, column) ? std::isnan(plotted) : plotted == double(weights(row, column));
            if (!ok) {
                *error = QStringLiteral("cell (%1, %2): %3 drawn, %4 computed")
                             .arg(row)
                             .arg(column)
                             .arg(plotted)
                             .arg(weights(row, column));
                return false;
            }
        }
    return true;
}

// The labels shown are the tokens at their rows and columns, inside the view, evenly thinned and
// at least a label's height apart.
bool labelsAreTheTokens(HeatmapPlot* plot, const AttentionResult& result, QString* error)
{
    const QRect cells = plot->visibleCells();
    for (const bool rows : {true, false}) {
        const auto labels = rows ? plot->shownRowLabels() : plot->shownColumnLabels();
        if (labels.size() < 3) {
            *error = QStringLiteral("%1 labels").arg(labels.size());
            return false;
        }
        const int step = labels[1].first - labels[0].first;
        for (int i = 0; i < labels.size(); ++i) {
            const auto& [at, text] = labels[i];
            const QString token = rows ? result.input.tokens[at].text : result.keyTokens()[at].text;
            const bool inside =
                rows ? at >= cells.top() && at <= cells.bottom() : at >= cells.left() && at <= cells.right();
            if (text != token || !inside || (i > 0 && at - labels[i - 1].first != step)) {
                *error =
                    QStringLiteral("label '%1' at %2 (token '%3', step %4)").arg(text).arg(at).arg(token).arg(step);
                return false;
            }
        }
        const QPointF a = rows ? centreOf(plot, labels[0].first, 0) : centreOf(plot, 0, labels[0].first);
        const QPointF b = rows ? centreOf(plot, labels[1].first, 0) : centreOf(plot, 0, labels[1].first);
        if ((b - a).manhattanLength() < 12) {
            *error = QStringLiteral("labels %1 px apart").arg((b - a).manhattanLength());
            return false;
        }
        if (labels.size() < cells.height() / step - 1 && rows) {
            *error =
                QStringLiteral("%1 row labels for %2 rows, step %3").arg(labels.size()).arg(cells.height()).arg(step);
            return false;
        }
    }
    return true;
}

}  // namespace

class TestHeatmapZoom : public QObject {
    Q_OBJECT

    std::shared_ptr<const AttentionResult> m_result;
    HeatmapData m_data;
    std::unique_ptr<HeadView> m_view;

    HeatmapPlot* plot() const { return m_view->plot(); }
    const Matrix& weights(int head = 1) const { return m_result->trace.probabilities[size_t(head)]; }

    // The wheel over query 1,500 / key 1,200 until every cell is drawn and about 48 a side show.
    void zoomToCells()
    {
        for (int notch = 0; notch < 40 && (plot()->reductionFactor() > 1 || plot()->visibleCells().width() > 48);
             ++notch) {
            wheel(plot(), centreOf(plot(), 1500, 1200), 120);
            settle(plot());
        }
    }

private slots:
    void initTestCase()
    {
        m_result = longResult();
        QVERIFY(m_result);
        QCOMPARE(m_result->seqLen(), kTokens);
        m_data = HeatmapData::fromResult(*m_result);
    }

    void init()
    {
        m_view = std::make_unique<HeadView>();
        m_view->resize(1000, 900);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        m_view->setResult(m_result);
        m_view->setHead(1);
        settle(plot());
        QCOMPARE(plot()->reductionFactor(), 2);
        QVERIFY(!plot()->isZoomed());
    }

    void cleanup() { m_view.reset(); }

    void wheelZoomsAboutTheCursorDownToRealCellsAndTokens()
    {
        QSignalSpy clicks(plot(), &HeatmapPlot::cellClicked);
        zoomToCells();
        QVERIFY(plot()->isZoomed());
        const QRect cells = plot()->visibleCells();
        QVERIFY2(cells.width() <= 48 && cells.width() >= 30, qPrintable(QString::number(cells.width())));
        // The cell under the cursor stayed under it.
        QVERIFY(cells.contains(1200, 1500));
        int row = -1, column = -1;
        QVERIFY(plot()->cellAt(centreOf(plot(), 1500, 1200).toPoint(), &row, &column));
        QVERIFY2(std::abs(row - 1500) <= 1 && std::abs(column - 1200) <= 1,
                 qPrintable(QStringLiteral("%1, %2").arg(row).arg(column)));
        QString error;
        QVERIFY2(drawsTheWeights(plot(), weights(), m_data.mask, &error), qPrintable(error));
        QVERIFY2(labelsAreTheTokens(plot(), *m_result, &error), qPrintable(error));
        // The title says what is shown; the button goes back to the whole.
        QVERIFY2(plot()->title().contains(QStringLiteral("cells 1:1")), qPrintable(plot()->title()));
        QVERIFY2(plot()->title().contains(QStringLiteral("queries %1–").arg(QLocale().toString(cells.top()))),
                 qPrintable(plot()->title()));
        QVERIFY(m_view->wholeButton()->isEnabled());
        QCOMPARE(clicks.count(), 0);
        // Not past a few cells.
        for (int notch = 0; notch < 30; ++notch)
            wheel(plot(), centreOf(plot(), 1500, 1200), 120);
        settle(plot());
        QCOMPARE(plot()->viewWindow().width(), double(HeatmapPlot::kMinZoomCells));
        QVERIFY(plot()->visibleCells().width() <= HeatmapPlot::kMinZoomCells + 1);
        QVERIFY2(drawsTheWeights(plot(), weights(), m_data.mask, &error), qPrintable(error));
        // Another head keeps the window.
        const QRect window = plot()->visibleCells();
        m_view->setHead(0);
        settle(plot());
        QCOMPARE(plot()->visibleCells(), window);
        QVERIFY2(drawsTheWeights(plot(), weights(0), m_data.mask, &error), qPrintable(error));
    }

    void reductionsLeaveTheGlobalPoolToPainting()
    {
        // Qt's raster engine waits on the global pool's threads for large fills: a reduction
        // queued there would hold up a paint of the window.
        QThreadPool::globalInstance()->waitForDone();
        m_view->setHead(0);
        QVERIFY(plot()->reductionPending());
        while (plot()->reductionPending()) {
            QCOMPARE(QThreadPool::globalInstance()->activeThreadCount(), 0);
            QCoreApplication::processEvents();
        }
        settle(plot());
        QCOMPARE(plot()->reductionFactor(), 2);
    }

    void dragPansAndADoubleClickShowsTheWhole()
    {
        zoomToCells();
        const QRect before = plot()->visibleCells();
        const double cell = centreOf(plot(), 1500, 1201).x() - centreOf(plot(), 1500, 1200).x();
        QVERIFY(cell > 10);
        QSignalSpy clicks(plot(), &HeatmapPlot::cellClicked);
        // Drag right and down by 10 cells: the view moves 10 cells left and up.
        const QPoint from = centreOf(plot(), 1500, 1200).toPoint();
        const QPoint to = from + QPoint(int(std::lround(10 * cell)), int(std::lround(10 * cell)));
        QTest::mousePress(canvas(plot()), Qt::LeftButton, {}, from);
        for (int step = 1; step <= 5; ++step)
            QTest::mouseMove(canvas(plot()), from + (to - from) * step / 5);
        QTest::mouseRelease(canvas(plot()), Qt::LeftButton, {}, to);
        settle(plot());
        QCOMPARE(clicks.count(), 0);  // a drag is not a click
        const QRect after = plot()->visibleCells();
        QVERIFY2(std::abs(after.left() - (before.left() - 10)) <= 1 && std::abs(after.top() - (before.top() - 10)) <= 1,
                 qPrintable(QStringLiteral("%1,%2 -> %3,%4")
                                .arg(before.left())
                                .arg(before.top())
                                .arg(after.left())
                                .arg(after.top())));
        QString error;
        QVERIFY2(drawsTheWeights(plot(), weights(), m_data.mask, &error), qPrintable(error));
        QVERIFY2(labelsAreTheTokens(plot(), *m_result, &error), qPrintable(error));
        // The arrow keys pan too, once the plot has been clicked.
        const QRectF window = plot()->viewWindow();
        QTest::keyClick(canvas(plot()), Qt::Key_Right, Qt::ShiftModifier);
        QTest::keyClick(canvas(plot()), Qt::Key_Down);
        QCOMPARE(plot()->viewWindow().left(), window.left() + 1);
        QCOMPARE(plot()->viewWindow().top(), window.top() + std::round(window.height() / 8));
        settle(plot());
        QVERIFY2(drawsTheWeights(plot(), weights(), m_data.mask, &error), qPrintable(error));
        // Panning stops at the matrix's edge.
        plot()->panBy(-5000, 0);
        settle(plot());
        QCOMPARE(plot()->visibleCells().left(), 0);
        QVERIFY2(drawsTheWeights(plot(), weights(), m_data.mask, &error), qPrintable(error));
        // A click that does not move still selects a cell.
        QTest::mouseClick(canvas(plot()), Qt::LeftButton, {}, centreOf(plot(), 1500, 3).toPoint());
        QCOMPARE(clicks.count(), 1);
        QCOMPARE(clicks[0][1].toInt(), 3);
        // Double-click: the whole matrix, reduced again.
        QTest::mouseDClick(canvas(plot()), Qt::LeftButton, {}, centreOf(plot(), 1500, 3).toPoint());
        settle(plot());
        QVERIFY(!plot()->isZoomed());
        QVERIFY(!m_view->wholeButton()->isEnabled());
        QCOMPARE(plot()->visibleCells(), QRect(0, 0, kTokens, kTokens));
        QCOMPARE(plot()->reductionFactor(), 2);
        QCOMPARE(plot()->plottedKeySize(), kTokens / 2);
        QCOMPARE(plot()->values()(700, 300), weights().block(1400, 600, 2, 2).maxCoeff());
        QVERIFY(!plot()->title().contains(QStringLiteral("queries")));
    }

    // A reduction asked for while another runs: the newest view wins, and a new matrix wins over
    // a view of the last one.
    void aNewerRequestIsNeverOverwritten()
    {
        QString error;
        plot()->zoomBy(8, centreOf(plot(), 200, 200));  // starts reducing a window around (200, 200)
        QVERIFY(plot()->reductionPending());
        plot()->setViewWindow(QRectF(1700, 1600, 40, 40));  // asked for before that one is delivered
        settle(plot());
        QCOMPARE(plot()->visibleCells(), QRect(1700, 1600, 40, 40));
        QVERIFY2(drawsTheWeights(plot(), weights(), m_data.mask, &error), qPrintable(error));
        // Another window of head 1, then head 0 in the same breath.
        plot()->setViewWindow(QRectF(100, 900, 40, 40));
        m_view->setHead(0);
        QVERIFY(plot()->reductionPending());
        settle(plot());
        QCOMPARE(plot()->visibleCells(), QRect(100, 900, 40, 40));
        QVERIFY2(drawsTheWeights(plot(), weights(0), m_data.mask, &error), qPrintable(error));
        // Reset while a window is reduced: the whole, not the window.
        plot()->setViewWindow(QRectF(300, 300, 64, 64));
        plot()->resetZoom();
        settle(plot());
        QCOMPARE(plot()->reductionFactor(), 2);
        QCOMPARE(plot()->drawnWindow(), (CellWindow{0, 0, kTokens, kTokens}));
    }

    // The picture of a zoomed view (export, copy) is the view: one flat colour per cell, the
    // cell's weight's colour; on screen as well.
    void picturesShowTheZoomedCells()
    {
        zoomToCells();
        // Colours over the window's own weights, so that cells differ.
        {
            const QRect cells = plot()->visibleCells();
            float high = 0.0f;
            for (int row = cells.top(); row <= cells.bottom(); ++row)
                for (int column = cells.left(); column <= cells.right(); ++column)
                    if (!m_data.mask(row, column) && row > 0)
                        high = std::max(high, weights()(row, column));
            plot()->setValueRange(0.0, high);
            plot()->replotNow();
        }
        const QImage screen = plot()->grab().toImage();
        const QImage picture = plot()->toImage(plot()->size());
        if (const QString dir = qEnvironmentVariable("ATTN_ZOOM_PNG_DIR"); !dir.isEmpty()) {
            screen.save(dir + QStringLiteral("/zoom-screen.png"));
            picture.save(dir + QStringLiteral("/zoom-picture.png"));
        }
        QVERIFY(plot()->isZoomed());
        const QRect cells = plot()->visibleCells();
        const double cell = centreOf(plot(), 0, 1).x() - centreOf(plot(), 0, 0).x();
        int checked = 0;
        for (int row = cells.top() + 1; row < cells.bottom(); row += 3)
            for (int column = cells.left() + 1; column < cells.right(); column += 3) {
                if (m_data.mask(row, column))
                    continue;
                const int drawn_row = row - plot()->drawnWindow().first_row;
                const int drawn_column = column - plot()->drawnWindow().first_column;
                const QColor expected =
                    ColorMaps::colorAt(plot()->colorMap(), plot()->colourPosition(drawn_row, drawn_column));
                const QPointF centre = centreOf(plot(), row, column);
                for (const QImage* image : {&screen, &picture}) {
                    const double scale = image->devicePixelRatio();
                    // The centre and points a third of a cell from it: one colour, the cell's.
                    for (const QPointF offset :
                         {QPointF(0, 0), QPointF(-cell / 3, -cell / 3), QPointF(cell / 3, cell / 3)}) {
                        const QColor seen = image->pixelColor(((centre + offset) * scale).toPoint());
                        const int difference =
                            std::max({std::abs(seen.red() - expected.red()), std::abs(seen.green() - expected.green()),
                                      std::abs(seen.blue() - expected.blue())});
                        QVERIFY2(difference <= 6, qPrintable(QStringLiteral("cell (%1, %2): %3 drawn, %4 expected")
                                                                 .arg(row)
                                                                 .arg(column)
                                                                 .arg(seen.name(), expected.name())));
                    }
                }
                ++checked;
            }
        QVERIFY(checked > 50);
        QVERIFY(plot()->isZoomed());  // a picture leaves the view as it was
    }

    // Between the whole and real cells the window is reduced again, in smaller blocks than the
    // whole: a 3,000 x 3,000 matrix (blocks of 3 x 3) zoomed to half its side is drawn in blocks
    // of 2 x 2 of that window, each the largest of its cells (the mean once chosen).
    void aWindowIsReducedAgainInSmallerBlocks()
    {
        constexpr int kSide = 3000;
        auto values = std::make_shared<Matrix>(kSide, kSide);
        for (int row = 0; row < kSide; ++row)
            for (int column = 0; column < kSide; ++column)
                (*values)(row, column) =
                    float(std::sin(row * 0.013) * std::cos(column * 0.021) + ((row + column) % 97 == 0 ? 1.5 : 0.0));
        QStringList labels;
        for (int i = 0; i < kSide; ++i)
            labels.append(QStringLiteral("t%1").arg(i));
        HeatmapPlot big;
        big.resize(900, 800);
        big.setZoomable(true);
        big.setSquareCells(true);
        big.setColorBarVisible(true);
        big.show();
        QVERIFY(QTest::qWaitForWindowExposed(&big));
        big.setMatrix(*values, labels, labels, {}, values);
        settle(&big);
        QCOMPARE(big.reductionFactor(), 3);
        const QImage whole = big.grab().toImage();
        big.setViewWindow(QRectF(1001, 701, 1500, 1500));  // blocks start at even rows and columns
        QVERIFY(big.reductionPending());
        settle(&big);
        QCOMPARE(big.reductionFactor(), 2);
        QCOMPARE(big.drawnWindow(), (CellWindow{700, 1000, 1502, 1502}));
        const auto blockMax = [&](int drawn_row, int drawn_column) {
            return values->block(700 + 2 * drawn_row, 1000 + 2 * drawn_column, 2, 2).maxCoeff();
        };
        for (int row = 0; row < big.rowCount(); row += 37)
            for (int column = 0; column < big.columnCount(); column += 41)
                QCOMPARE(big.values()(row, column), blockMax(row, column));
        // Labels name the tokens they sit at, the multiples of one step (a reduced cell holds two).
        const auto shown_columns = big.shownColumnLabels();
        QVERIFY(shown_columns.size() >= 2);
        const int step = shown_columns[1].first - shown_columns[0].first;
        for (const auto& [column, text] : shown_columns) {
            QCOMPARE(column % step, 0);
            QCOMPARE(text, labels[column]);
        }
        if (const QString dir = qEnvironmentVariable("ATTN_ZOOM_PNG_DIR"); !dir.isEmpty()) {
            whole.save(dir + QStringLiteral("/reduced-whole.png"));
            big.grab().toImage().save(dir + QStringLiteral("/reduced-window.png"));
        }
        // Each row to its max: a zoomed row is divided by the largest of its whole row, not of
        // the columns in view.
        big.setColorMapping(HeatmapPlot::ColorMapping::PerRow);
        settle(&big);
        int larger_off_view = 0;
        for (int row = 0; row < big.rowCount(); row += 53) {
            const float top = values->middleRows(700 + 2 * row, 2).maxCoeff();
            larger_off_view += top > values->block(700 + 2 * row, 1000, 2, 1502).maxCoeff();
            for (int column = 0; column < big.columnCount(); column += 59)
                QCOMPARE(big.colourValues()(row, column), big.values()(row, column) / top);
        }
        QVERIFY(larger_off_view > 0);
        big.setReduction(CellReduction::Mean);
        big.setMatrix(*values, labels, labels, {}, values);  // the reduction applies from the next matrix
        settle(&big);
        QCOMPARE(big.values()(5, 9), float(values->block(710, 1018, 2, 2).cast<double>().mean()));
        float top_mean = 0.0f;
        for (int block = 0; block < kSide / 2; ++block)
            top_mean = std::max(top_mean, float(values->block(710, 2 * block, 2, 2).cast<double>().mean()));
        QCOMPARE(big.colourValues()(5, 9), big.values()(5, 9) / top_mean);
    }

    // A matrix drawn whole (here 40 tokens) zooms by its axes alone; its labels follow.
    void aSmallMatrixZoomsWithoutReducing()
    {
        Matrix values(40, 40);
        QStringList labels;
        for (int row = 0; row < 40; ++row) {
            labels.append(QStringLiteral("t%1").arg(row));
            for (int column = 0; column < 40; ++column)
                values(row, column) = float(row * 40 + column) / 1600.0f;
        }
        HeatmapPlot small;
        small.resize(600, 600);
        small.show();
        QVERIFY(QTest::qWaitForWindowExposed(&small));
        small.setZoomable(true);
        small.setMatrix(values, labels, labels);
        small.replotNow();
        small.zoomBy(4);
        small.replotNow();
        QCOMPARE(small.visibleCells(), QRect(15, 15, 10, 10));
        QCOMPARE(small.drawnWindow(), (CellWindow{0, 0, 40, 40}));
        QCOMPARE(small.plottedKeySize(), 40);
        const auto shown = small.shownColumnLabels();
        QVERIFY2(shown.size() >= 5,
                 qPrintable(QStringLiteral("%1 labels; x %2").arg(shown.size()).arg(small.visibleCells().x())));
        for (const auto& [column, text] : shown) {
            QVERIFY(column >= 15 && column < 25);
            QCOMPARE(text, labels[column]);
        }
        QVERIFY(small.cellTextVisible());  // 10 cells across 600 pixels hold their numbers
        small.zoomBy(100);
        QCOMPARE(small.visibleCells().width(), HeatmapPlot::kMinZoomCells);
        small.resetZoom();
        QVERIFY(!small.isZoomed());
        // Not zoomable: the wheel does nothing.
        small.setZoomable(false);
        small.replotNow();
        wheel(&small, QPointF(small.rect().center()), 120);
        QVERIFY(!small.isZoomed());
    }
};

REGISTER_TEST_SUITE(TestHeatmapZoom, QApplication)
#include "test_heatmap_zoom.moc"
