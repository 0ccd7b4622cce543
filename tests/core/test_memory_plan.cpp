// The memory planner: what a request takes, the budget, and what it says would fit.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/MemoryPlan.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

using namespace attn;

namespace {

constexpr std::int64_t kMiB = std::int64_t(1) << 20;
constexpr std::int64_t kGiB = std::int64_t(1) << 30;

// d_model 768, 12 heads, no drawing: the engine alone.
MemoryRequest bertSized(int tokens)
{
    MemoryRequest request;
    request.query_len = tokens;
    request.key_len = tokens;
    request.num_heads = 12;
    request.d_model = 768;
    request.input_dim = 768;
    request.output_dim = 768;
    request.parameters = 4 * 768 * 768;
    return request;
}

}  // namespace

class TestMemoryPlan : public QObject {
    Q_OBJECT

private slots:
    void weightsAreHeadsTimesQueriesTimesKeysFloats()
    {
        MemoryRequest request = bertSized(8192);
        const MemoryEstimate estimate = MemoryPlan::estimate(request);
        QCOMPARE(estimate.probabilities, std::int64_t(4) * 12 * 8192 * 8192);  // 3 GiB
        QCOMPARE(estimate.scores, std::int64_t(0));
        QCOMPARE(estimate.view_copies, std::int64_t(0));
        QCOMPARE(estimate.json, std::int64_t(0));
        // X and its positional part, Q, concat, a temporary, the output, K, V, the parameters.
        QCOMPARE(estimate.vectors,
                 std::int64_t(4) * (2 * 8192 * 768 + 3 * 8192 * 768 + 8192 * 768 + 2 * 8192 * 768 + 4 * 768 * 768));
        request.detail = TraceDetail::Full;
        QCOMPARE(MemoryPlan::estimate(request).scores, estimate.probabilities);
    }

    void crossAttentionUsesBothLengths()
    {
        MemoryRequest request = bertSized(100);
        request.self_attention = false;
        request.key_len = 3000;
        QCOMPARE(MemoryPlan::estimate(request).probabilities, std::int64_t(4) * 12 * 100 * 3000);
    }

    void picturesCostPerCellUpToTheReducedSize()
    {
        MemoryRequest request = bertSized(1000);
        request.view_copies = 12;
        request.masked = true;
        const std::int64_t cells = 1000 * 1000;  // the views' mask and its copy: two bytes per cell
        QCOMPARE(MemoryPlan::estimate(request).view_copies, MemoryPlan::kPictureBytesPerCell * 12 * cells + 2 * cells);
        request.view_cells = 500 * 500;  // each picture reduced to at most this many cells
        QCOMPARE(MemoryPlan::estimate(request).view_copies, MemoryPlan::kPictureBytesPerCell * 12 * 500 * 500 + 2 * cells);
        request.view_cells = 2000 * 2000;  // a limit above the matrix changes nothing
        QCOMPARE(MemoryPlan::estimate(request).view_copies, MemoryPlan::kPictureBytesPerCell * 12 * cells + 2 * cells);
        request.masked = false;  // nothing masked: no mask is made
        QCOMPARE(MemoryPlan::estimate(request).view_copies, MemoryPlan::kPictureBytesPerCell * 12 * cells);
        request.view_copies = 0;
        QCOMPARE(MemoryPlan::estimate(request).view_copies, std::int64_t(0));
    }

    // The JSON is written as it is made: two chunks of text, a row, and a block of 64 query rows of
    // every head for the head metrics; it grows with the keys, not with T x T.
    void jsonIsStreamed()
    {
        for (int tokens : {100, 4000}) {
            MemoryRequest request = bertSized(tokens);
            request.json = true;
            QCOMPARE(MemoryPlan::estimate(request).json,
                     2 * (std::int64_t(4) << 20) + MemoryPlan::kJsonBytesPerValue * tokens + 4 * 12 * 64 * tokens);
        }
    }

    void aRequestInsideTheBudgetPasses() { QVERIFY(MemoryPlan::check(bertSized(512), 2 * kGiB).ok()); }

    void aRefusalSaysWhatItNeedsAndWhatWouldFit()
    {
        const MemoryRequest request = bertSized(8192);
        const Status status = MemoryPlan::check(request, 2 * kGiB);
        QVERIFY(!status.ok());
        const QString& message = status.error();
        QVERIFY2(message.startsWith("8,192 tokens x 8,192 keys x 12 heads need about 3."), qPrintable(message));
        QVERIFY2(message.contains("attention weights 3.0 GB"), qPrintable(message));
        QVERIFY2(message.contains("over the memory budget of 2.0 GB"), qPrintable(message));
        const int longest = MemoryPlan::longestInputThatFits(request, 2 * kGiB);
        QVERIFY2(
            message.contains(QStringLiteral("at most %1 tokens fit").arg(QLocale(QLocale::English).toString(longest))),
            qPrintable(message));
        QVERIFY2(
            message.contains(
                QStringLiteral(", or %1 heads at this length").arg(MemoryPlan::mostHeadsThatFit(request, 2 * kGiB))),
            qPrintable(message));
        QVERIFY2(!message.contains('\n'), "one line");
    }

    void theLongestInputIsTheLastLengthThatFits()
    {
        for (std::int64_t budget : {300 * kMiB, 2 * kGiB, 5 * kGiB}) {
            MemoryRequest request = bertSized(1);
            const int longest = MemoryPlan::longestInputThatFits(request, budget);
            QVERIFY(longest > 0);
            request.query_len = longest;
            QVERIFY(MemoryPlan::estimate(request).total() <= budget);
            request.query_len = longest + 1;
            QVERIFY(MemoryPlan::estimate(request).total() > budget);
        }
        // Below the program's own baseline nothing fits.
        QCOMPARE(MemoryPlan::longestInputThatFits(bertSized(1), 100 * kMiB), 0);
    }

    void theMostHeadsThatFitKeepTheHeadWidth()
    {
        MemoryRequest request = bertSized(8192);
        request.view_copies = 12;  // a grid: one picture per head
        request.view_cells = 1000 * 1000;
        const int heads = MemoryPlan::mostHeadsThatFit(request, 2 * kGiB);
        QVERIFY(heads >= 1 && heads < 12);
        MemoryRequest fewer = request;
        fewer.num_heads = heads;
        fewer.d_model = 64 * heads;
        fewer.view_copies = heads;
        QVERIFY(MemoryPlan::estimate(fewer).total() <= 2 * kGiB);
        fewer.num_heads = heads + 1;
        fewer.d_model = 64 * (heads + 1);
        fewer.view_copies = heads + 1;
        QVERIFY(MemoryPlan::estimate(fewer).total() > 2 * kGiB);
    }

    void oneHeadAtTwentyThousandTokensFitsTwoGigabytesWithReducedPictures()
    {
        // The export: 20,000 words, d_model 8, one head, one PNG of 1200 x 900.
        MemoryRequest request;
        request.query_len = 20000;
        request.key_len = 20000;
        request.num_heads = 1;
        request.d_model = 8;
        request.input_dim = 8;
        request.output_dim = 8;
        request.parameters = 4 * 8 * 8;
        request.view_copies = 1;
        request.view_cells = 1024 * 1024;  // drawn reduced
        QVERIFY(MemoryPlan::check(request, 2 * kGiB).ok());
        request.view_cells = 0;  // every cell drawn: 13 GB of pictures
        QVERIFY(!MemoryPlan::check(request, 2 * kGiB).ok());
    }

    void aLongInputKeepsTwoHeadsAndEveryHeadsPicture()
    {
        // The window at T = 8,192, d_model 768, 12 heads: the grid's 12 pictures and the head
        // view's, each reduced to 1,024 x 1,024 (blocks of 8 x 8).
        QCOMPARE(AttentionPipeline::blockFactorFor(8192, 8192, 12, 1024), 8);
        MemoryRequest request = bertSized(8192);
        request.view_copies = 13;
        request.view_cells = 1024 * 1024;
        const MemoryEstimate every_head = MemoryPlan::estimate(request);
        request.block_factor = 8;
        request.kept_heads = 2;  // the kept head and the one recomputed last
        const MemoryEstimate long_route = MemoryPlan::estimate(request);
        const std::int64_t cells = std::int64_t(8192) * 8192;
        QCOMPARE(every_head.probabilities, 4 * 12 * cells);
        QCOMPARE(long_route.probabilities, 4 * 2 * cells);
        // The engine's max, mean and flag of every block of every head, and each head's row maxima.
        QCOMPARE(long_route.view_copies - every_head.view_copies, std::int64_t(12) * (9 * 1024 * 1024 + 4 * 8192));
        QCOMPARE(long_route.vectors, every_head.vectors);
        QVERIFY(every_head.total() > 3 * kGiB);
        QVERIFY(long_route.total() < 2 * kGiB);  // the goal for the window's resident memory
        QVERIFY(MemoryPlan::check(request, 2 * kGiB).ok());
        // One head never keeps more than itself.
        request.num_heads = 1;
        request.d_model = 64;
        request.view_copies = 2;
        QCOMPARE(MemoryPlan::estimate(request).probabilities, 4 * cells);
    }

    void theLongRouteIsForInputsWhoseHeadsDoNotFit()
    {
        // Up to a picture's side nothing is reduced: every head kept, as always.
        QCOMPARE(AttentionPipeline::blockFactorFor(1024, 1024, 64, 1024), 0);
        QCOMPARE(AttentionPipeline::blockFactorFor(100, 30000, 1, 1024), 0);  // reduced, but 12 MB: kept
        // Reduced, but every head's weights are small enough to keep (12 x 2,048^2: 192 MB).
        QCOMPARE(AttentionPipeline::blockFactorFor(2048, 2048, 12, 1024), 0);
        QCOMPARE(AttentionPipeline::blockFactorFor(4096, 4096, 12, 1024), 4);       // 768 MB
        QCOMPARE(AttentionPipeline::blockFactorFor(20000, 20000, 1, 1024), 20);     // 1.5 GB
        QCOMPARE(AttentionPipeline::blockFactorFor(8192, 8192, 12, 0), 0);          // nothing drawn
    }

    void sizes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes");
        QTest::addRow("gigabytes") << "2G" << qint64(2) * kGiB;
        QTest::addRow("with B and a space") << "1.5 GB" << qint64(3) * kGiB / 2;
        QTest::addRow("GiB") << "4GiB" << qint64(4) * kGiB;
        QTest::addRow("megabytes, lower case") << "800m" << qint64(800) * kMiB;
        QTest::addRow("bytes") << "1073741824" << qint64(kGiB);
        QTest::addRow("terabytes") << "1T" << qint64(1024) * kGiB;
    }
    void sizes()
    {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        const Result<std::int64_t> parsed = MemoryPlan::parseSize(text);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(qint64(*parsed), bytes);
    }

    void badSizes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("reason");
        QTest::addRow("empty") << ""
                               << "is not a size";
        QTest::addRow("words") << "lots"
                               << "is not a size";
        QTest::addRow("negative") << "-2G"
                                  << "is not a size";
        QTest::addRow("unknown unit") << "2X"
                                      << "is not a size";
        QTest::addRow("too small") << "10M"
                                   << "is less than the 64 MB the program needs";
        QTest::addRow("absurd") << "99999999T"
                                << "is larger than any machine's memory";
    }
    void badSizes()
    {
        QFETCH(QString, text);
        QFETCH(QString, reason);
        const Result<std::int64_t> parsed = MemoryPlan::parseSize(text);
        QVERIFY(!parsed.ok());
        QVERIFY2(parsed.error().contains(reason), qPrintable(parsed.error()));
    }

    // The window's budget field: the command line's units (a bare number is bytes), and no more
    // than the machine has.
    void budgetsAreSizesTheMachineHas()
    {
        const std::int64_t physical = 8 * kGiB;
        QCOMPARE(qint64(*MemoryPlan::parseBudget("800M", physical)), qint64(800 * kMiB));
        QCOMPARE(qint64(*MemoryPlan::parseBudget("512 MB", physical)), qint64(512 * kMiB));
        QCOMPARE(qint64(*MemoryPlan::parseBudget("2G", physical)), qint64(2 * kGiB));
        QCOMPARE(qint64(*MemoryPlan::parseBudget("8G", physical)), qint64(8 * kGiB));
        const Result<std::int64_t> bare = MemoryPlan::parseBudget("100", physical);  // 100 bytes
        QVERIFY(!bare.ok());
        QVERIFY2(bare.error().contains("is less than the 64 MB"), qPrintable(bare.error()));
        const Result<std::int64_t> over = MemoryPlan::parseBudget("9G", physical);
        QVERIFY(!over.ok());
        QVERIFY2(over.error().contains("more than this machine's 8.0 GB"), qPrintable(over.error()));
        QVERIFY(MemoryPlan::parseBudget("9G", 0).ok());  // the machine's memory unknown
    }

    void theDefaultBudgetIsHalfThePhysicalMemoryAtMost()
    {
        const std::int64_t physical = MemoryPlan::physicalMemory();
        QVERIFY(physical > 0);
        const std::int64_t budget = MemoryPlan::defaultBudget();
        QVERIFY(budget > 0);
        QVERIFY(budget <= physical / 2);
    }

    void formatsSizes()
    {
        QCOMPARE(MemoryPlan::formatSize(3 * kGiB / 2), QStringLiteral("1.5 GB"));
        QCOMPARE(MemoryPlan::formatSize(640 * kMiB), QStringLiteral("640 MB"));
    }
};

REGISTER_TEST_SUITE(TestMemoryPlan, QCoreApplication)
#include "test_memory_plan.moc"
