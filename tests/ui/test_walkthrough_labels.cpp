// The walkthrough's labels on a long input: headers and the score breakdown measure only their
// widest label (found with the tables on the worker), and the breakdown paints only the rows in
// its clip.
#include "core/analysis/WalkthroughData.h"
#include "tests/support/LongInput.h"
#include "tests/support/TestSuite.h"
#include "tests/support/ToyAttention.h"
#include "ui/views/walkthrough/ScoreBreakdownView.h"
#include "ui/views/walkthrough/WalkthroughItemModel.h"
#include "ui/views/walkthrough/WalkthroughView.h"
#include "ui/views/walkthrough/WidestLabel.h"

#include <QHeaderView>
#include <QImage>
#include <QPainter>
#include <QTableView>
#include <QTest>

#include <optional>

using namespace attn;

class TestWalkthroughLabels : public QObject {
    Q_OBJECT

private slots:
    // A header is as wide as its widest label, wherever that is: QHeaderView measured the first
    // and last 100 sections only (and every one of them each time the table changed). Never
    // narrower than Qt's own header, and as tall.
    void headersFitTheirWidestLabel()
    {
        QStringList words;
        for (int i = 0; i < 300; ++i)
            words.append(i == 150 ? QStringLiteral("incomprehensibilities") : QStringLiteral("w%1").arg(i % 7));
        auto result = std::make_shared<const AttentionResult>(test::sentenceResult(16, 2, 0, false, words.join(u' ')));
        QCOMPARE(result->seqLen(), 300);
        WalkthroughView view;
        view.resize(1200, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setResult(result);
        view.select(1, 20);

        QTableView* x = view.tableView(1, 0);  // X: a row per token, a column per feature
        const QAbstractItemModel* model = x->model();
        QCOMPARE(model->headerData(0, Qt::Vertical, WalkthroughItemModel::WidestSectionRole).toInt(), 150);
        QCOMPARE(model->headerData(150, Qt::Vertical).toString(), QStringLiteral("150 incomprehensibilities"));
        QFont bold = x->verticalHeader()->font();
        bold.setBold(true);  // as QHeaderView measures every section
        QVERIFY(x->verticalHeader()->width() >=
                QFontMetrics(bold).horizontalAdvance(QStringLiteral("150 incomprehensibilities")));
        QHeaderView qt_rows(Qt::Vertical);
        qt_rows.setModel(x->model());
        QHeaderView qt_columns(Qt::Horizontal);
        qt_columns.setModel(x->model());
        QVERIFY(x->verticalHeader()->sizeHint().width() > qt_rows.sizeHint().width());
        QCOMPARE(x->horizontalHeader()->sizeHint().height(), qt_columns.sizeHint().height());

        // The weights' row of the query: its columns are the keys, the widest one named too.
        QCOMPARE(view.tableModel(6, 0)->headerData(0, Qt::Horizontal, WalkthroughItemModel::WidestSectionRole).toInt(),
                 150);
        // Without a name from the model (a table set by hand) the header measures as Qt's does.
        WalkthroughItemModel alone;
        alone.setTable(view.tableModel(1, 0)->table());
        QVERIFY(!alone.headerData(0, Qt::Vertical, WalkthroughItemModel::WidestSectionRole).isValid());
    }

    void widestLabel()
    {
        WidestLabel widest(QFont{});
        QCOMPARE(widest.in({QStringLiteral("ii"), QStringLiteral("WWWW"), QStringLiteral("abc")}), 1);
        QCOMPARE(widest.in({QStringLiteral("iiiiii"), QStringLiteral("WWWW")}), 1);  // widths, not lengths
        QCOMPARE(widest.in({}), -1);
        // The same labels again, in another list: the same answer.
        QCOMPARE(widest.in(QStringList{QStringLiteral("ii"), QStringLiteral("WWWW"), QStringLiteral("abc")}), 1);
    }

    // The score breakdown of a long input has a row per key: it is as wide as its widest key label
    // whether it measures one (named by the worker) or all, and a paint of a band of rows (it
    // paints only the rows in the clip) gives the band of the whole picture, rows cut at its edges
    // included.
    void breakdownMeasuresOneLabelAndPaintsTheExposedRows()
    {
        const AttentionResult result = test::sentenceResult(16, 2, 0, false, numberedWords(200, 200));
        const WalkthroughData walk = WalkthroughData::build(result, 1, 3);
        const RowVector raw = walk.step(3).tables[0].values.row(3);
        ScoreBreakdownView all;
        all.setData(walk.products, raw);
        ScoreBreakdownView one;
        one.setData(walk.products, raw, WidestLabel(one.font()).in(walk.products.row_labels));
        QCOMPARE(one.sizeHint(), all.sizeHint());

        one.resize(one.sizeHint());
        const auto picture = [&one](std::optional<QRect> clip) {
            QImage image(one.size(), QImage::Format_ARGB32_Premultiplied);
            image.fill(Qt::transparent);
            QPainter painter(&image);
            if (clip)
                painter.setClipRect(*clip);
            one.paint(painter, QRectF(one.rect()));
            return image;
        };
        // The band of keys 100 to 109, found through the view's own cell lookup.
        const int x = one.rect().center().x();
        int top = -1, bottom = -1;
        for (int y = 0; y < one.height(); ++y) {
            const int key = one.cellAt(QPointF(x, y + 0.5)).x();
            if (key == 100 && top < 0)
                top = y;
            if (key == 109)
                bottom = y;
        }
        QVERIFY(top > 0 && bottom > top + 10);
        const QRect band(0, top + 5, one.width(), bottom - top - 10);  // keys 100 and 109 in part
        const QImage whole = picture(std::nullopt);
        const QImage clipped = picture(band);
        QCOMPARE(clipped.copy(band), whole.copy(band));
        QCOMPARE(qAlpha(clipped.pixel(x, top + 5)), 255);     // key 100's cell
        QCOMPARE(qAlpha(clipped.pixel(x, bottom - 6)), 255);  // key 109's
    }
};

REGISTER_TEST_SUITE(TestWalkthroughLabels, QApplication)
#include "test_walkthrough_labels.moc"
