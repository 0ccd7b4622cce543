// The engine's fast paths: the direct product kernel, the column-chunked projections
// with their finiteness check, the vectorised allFinite, the transpose of K and the streamed copy
// of the kept weights, and the engine's error order now that
// the weights' finiteness is checked during the projections.

#include "core/attention/AttentionEngine.h"
#include "core/attention/AttentionWeights.h"
#include "core/base/InstructionSet.h"
#include "core/base/SplitMix64.h"
#include "core/ops/Linear.h"
#include "core/ops/LinearColumns.h"
#include "core/ops/StreamingCopy.h"
#include "core/ops/Transpose.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <string_view>

using namespace attn;
using namespace attn::testing;

namespace {

Matrix randomMatrix(int rows, int cols, std::uint64_t seed)
{
    SplitMix64 rng(seed);
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = float(rng.uniform(-1.0, 1.0));
    return m;
}

// Both ways the packed kernels can read w, whatever this processor would choose; each forced for
// the life of a StripReadingForced.
constexpr StripReading kBothStripReadings[] = {StripReading::InPlace, StripReading::ThroughPanels};
struct StripReadingForced {
    explicit StripReadingForced(StripReading reading) { setStripReading(reading); }
    ~StripReadingForced() { setStripReading(StripReading::ForThisProcessor); }
    StripReadingForced(const StripReadingForced&) = delete;
    StripReadingForced& operator=(const StripReadingForced&) = delete;
};

// x w + b in double, the reference for the float kernels.
MatrixD reference(const Matrix& x, const Matrix& w, const RowVector& b)
{
    MatrixD out = x.cast<double>() * w.cast<double>();
    if (b.size() > 0)
        out.rowwise() += b.cast<double>();
    return out;
}

// Where `out` lies beyond one float32 pass's error bound of x w + b (tests/support/Float32Bounds.h:
// gamma_n times each entry's sum of |terms|, for any order of the sums); empty when within.
QString beyondProductBound(const Matrix& out, const Matrix& x, const Matrix& w, const RowVector& b)
{
    const DoubleMatrix no_difference = DoubleMatrix::Zero(x.rows(), x.cols());
    return beyondBound("x w + b", out, DoubleMatrix(reference(x, w, b)), productBound(x, no_difference, w, b, 1).bound);
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

class TestLinearColumns : public QObject {
    Q_OBJECT

private slots:
    // The variants of the kernel suites that force a build of the engine (tests/core/CMakeLists.txt)
    // name it in ATTENTION_EXPECTED_ENGINE: the build glibc loaded must be that one, or the
    // variant would test another path than it says.
    void theForcedEngineBuildIsLoaded()
    {
        const QString expected = qEnvironmentVariable("ATTENTION_EXPECTED_ENGINE");
        if (expected.isEmpty())
            QSKIP("no engine build forced (only the ATTENTION_LAB_HWCAPS variants force one)");
        const QString loaded = engineInstructionSet();
        QVERIFY2(loaded == expected || loaded.startsWith(expected + u' '),
                 qPrintable(QStringLiteral("forced %1, loaded %2").arg(expected, loaded)));
    }

    // The engine's matrices are freed and resized by its caller, which under ATTENTION_LAB_HWCAPS
    // is compiled for another instruction set: both must allocate alike (core/CMakeLists.txt).
    void callerFreesTheEnginesMatrices()
    {
        AttentionWeights w = *AttentionWeights::random(64, 64, 4, 1);  // allocated in the engine
        w.in_proj.resize(32, 96);                                      // freed and allocated here
        w.in_proj.setZero();
        Result<AttentionTrace> trace =
            AttentionEngine::forward(randomMatrix(5, 64, 1), *AttentionWeights::random(64, 64, 4, 2));
        QVERIFY(trace.ok());
        trace->output.resize(1, 1);
        trace->probabilities.clear();
        QCOMPARE(w.in_proj.sum(), 0.0f);
    }

    void directProductMatchesDouble_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("inner");
        QTest::addColumn<int>("cols");
        // Columns around the tile widths (16-float packets: 1, 3 and 4 packets and leftovers),
        // rows around the register tiles (6 and 8 rows), and the engine's own shapes.
        for (int cols : {1, 7, 15, 16, 17, 33, 47, 48, 49, 64, 65, 96, 100, 130})
            for (int rows : {1, 5, 6, 7, 8, 9, 17})
                QTest::addRow("%dx%d * %dx%d", rows, 37, 37, cols) << rows << 37 << cols;
        // One-packet strips (head_dim 16) in tiles of at most 8 rows, with ragged last tiles.
        for (int rows : {1, 7, 15, 23, 24, 25, 63, 65, 513})
            QTest::addRow("%dx%d * %dx16", rows, 63, 63) << rows << 63 << 16;
        QTest::newRow("weights x V_h: 64 queries, 2048 keys, head_dim 16") << 64 << 2048 << 16;
        QTest::newRow("scores block: 64 queries, head_dim 64, 300 keys") << 64 << 64 << 300;
        QTest::newRow("weights x V_h: 64 queries, 2048 keys, head_dim 64") << 64 << 2048 << 64;
        QTest::newRow("projection: 16 tokens, d_model 512") << 16 << 512 << 512;
        QTest::newRow("inner dimension 1") << 9 << 1 << 50;
    }

    void directProductMatchesDouble()
    {
        QFETCH(int, rows);
        QFETCH(int, inner);
        QFETCH(int, cols);
        const Matrix x = randomMatrix(rows, inner, 1);
        const Matrix w = randomMatrix(inner, cols, 2);
        Matrix out = Matrix::Constant(rows, cols, kNaN);  // every entry must be written
        directProduct(x, w, out);
        const QString beyond = beyondProductBound(out, x, w, RowVector());
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    // x packed in tiles of 8 rows (packRowTiles): the packed kernel does every whole packet of
    // columns (3-packet strips, then a 2- or 1-packet one), with the same sums as directProduct, for
    // ragged row counts (a last tile of 1..7 rows, fewer rows than a tile) and inner sizes across
    // panel boundaries (128 rows of w per panel); linear() (its packed path, both threads) leaves
    // nothing unset.
    void packedRowsMatchDirectProduct_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("inner");
        QTest::addColumn<int>("cols");
        for (int rows : {1, 7, 8, 9, 15, 16, 17, 63, 130})
            for (int inner : {1, 37, 128, 129, 300})
                for (int cols : {100, 120})  // 6 packets + 4 columns; 7 packets + 8 (a 1-packet strip)
                    QTest::addRow("%dx%d * %dx%d", rows, inner, inner, cols) << rows << inner << cols;
        QTest::newRow("GPT-2's MLP down, 20 tokens") << 20 << 3072 << 96;
    }

    void packedRowsMatchDirectProduct()
    {
        QFETCH(int, rows);
        QFETCH(int, inner);
        QFETCH(int, cols);
        const Matrix x = randomMatrix(rows, inner, 11);
        const Matrix w = randomMatrix(inner, cols, 12);
        std::vector<float> packed(size_t(packedTiles(rows) * inner * kPackedTileRows), kNaN);
        packRowTiles(x, 0, packedTiles(rows), packed.data());
        Matrix direct = Matrix::Constant(rows, cols, kNaN);
        directProduct(x, w, direct);
        for (const StripReading reading : kBothStripReadings) {
            const StripReadingForced forced(reading);
            Matrix out = Matrix::Constant(rows, cols, kNaN);
            const Eigen::Index done = directPackedProduct(packed.data(), rows, w, out);
            // The engine's packets, not this file's: under ATTENTION_LAB_HWCAPS the test is compiled
            // for baseline x86-64 (4-float packets) and the engine may be its -v3 or -v4 copy.
            const Eigen::Index packet = kernelPacketFloats();
            QCOMPARE(done, cols / packet * packet);
            QCOMPARE(out.leftCols(done), direct.leftCols(done));        // the same additions in the same order
            QVERIFY(out.rightCols(cols - done).array().isNaN().all());  // the rest is left to the caller

            Matrix through_linear = Matrix::Constant(rows, cols, kNaN);
            QVERIFY(linear(x, w, nullptr, through_linear, false));
            const QString beyond = beyondProductBound(through_linear, x, w, RowVector());
            QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
        }
    }

    // linear() shares the rows out among its threads when w is narrow, and goes through the inner
    // dimension a block at a time when packed x is large; either way each entry is the same chain
    // of multiply-adds as directProduct's, so the results are equal bit for bit.
    void linearEqualsDirectProductOnEveryPath_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("inner");
        QTest::addColumn<int>("cols");
        QTest::newRow("rows shared: Qwen2's K projection, 256 tokens") << 256 << 896 << 128;
        QTest::newRow("rows shared: ragged tiles and columns") << 203 << 300 << 121;
        QTest::newRow("rows shared, in inner blocks: BERT's MLP down, 512 tokens") << 512 << 3072 << 768;
        QTest::newRow("inner blocks: 64 x 5000 packed (1.3 MB), ragged last block") << 64 << 5000 << 300;
        QTest::newRow("inner blocks: 130 rows, 2500 inner, 530 columns") << 130 << 2500 << 530;
        QTest::newRow("columns shared, one block") << 40 << 768 << 500;
        QTest::newRow("blocks of rows: 1100 rows, two blocks of 550") << 1100 << 200 << 300;
        QTest::newRow("blocks of rows: 2100 rows, three blocks, ragged columns") << 2100 << 96 << 100;
    }

    void linearEqualsDirectProductOnEveryPath()
    {
        QFETCH(int, rows);
        QFETCH(int, inner);
        QFETCH(int, cols);
        const Matrix x = randomMatrix(rows, inner, 21);
        const Matrix w = randomMatrix(inner, cols, 22);
        const RowVector b = randomMatrix(1, cols, 23);
        Matrix expected = Matrix::Constant(rows, cols, kNaN);
        directProduct(x, w, expected);
        expected.rowwise() += b;
        for (const StripReading reading : kBothStripReadings) {
            const StripReadingForced forced(reading);
            Matrix out = Matrix::Constant(rows, cols, kNaN);
            QVERIFY(linear(x, w, b.data(), out));
            QCOMPARE(out, expected);
        }
    }

    // 8 x 8 blocks in registers, the edges element by element: ragged sizes, strided blocks, a
    // whole head's K (2048 keys, rows 2 KiB apart), nothing written outside dst.
    void transposeAndStreamingCopyAreExact_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        for (auto [rows, cols] : {std::pair{0, 5}, {1, 1}, {7, 9}, {8, 8}, {13, 21}, {64, 64}, {2048, 64}, {130, 17}})
            QTest::addRow("%d x %d", rows, cols) << rows << cols;
    }
    void transposeAndStreamingCopyAreExact()
    {
        QFETCH(int, rows);
        QFETCH(int, cols);
        const Matrix big = randomMatrix(rows + 3, cols + 5, 31);
        const auto src = big.block(1, 2, rows, cols);  // (rows, cols), strided
        Matrix big_out = Matrix::Constant(cols + 4, rows + 6, kNaN);
        transposeInto(src, big_out.block(2, 3, cols, rows));
        QCOMPARE(Matrix(big_out.block(2, 3, cols, rows)), Matrix(src.transpose()));
        big_out.block(2, 3, cols, rows).setConstant(kNaN);
        QVERIFY(big_out.array().isNaN().all());  // nothing else was written

        // The streamed copy, into rows that start at every alignment.
        Matrix copy_out = Matrix::Constant(rows + 2, cols + 7, kNaN);
        copyStreaming(src, copy_out.block(1, 3, rows, cols));
        QCOMPARE(Matrix(copy_out.block(1, 3, rows, cols)), Matrix(src));
        copy_out.block(1, 3, rows, cols).setConstant(kNaN);
        QVERIFY(copy_out.array().isNaN().all());
    }

    void directProductReadsAndWritesStridedBlocks()
    {
        // The engine passes column blocks: a head's queries, K_h^T rows, a head's output columns.
        const Matrix big_x = randomMatrix(20, 90, 3);
        const Matrix big_w = randomMatrix(70, 200, 4);
        Matrix big_out = Matrix::Zero(30, 150);
        const auto x = big_x.block(2, 10, 13, 64);   // (13, 64), stride 90
        const auto w = big_w.block(3, 20, 64, 100);  // (64, 100), stride 200
        directProduct(x, w, big_out.block(5, 30, 13, 100));
        QVERIFY(beyondProductBound(big_out.block(5, 30, 13, 100), x, w, RowVector()).isEmpty());
        // Nothing outside the destination block was touched.
        Matrix outside = big_out;
        outside.block(5, 30, 13, 100).setZero();
        QCOMPARE(outside.cwiseAbs().maxCoeff(), 0.0f);
    }

    void linearColumnsSharedByThreadsMatchesDouble_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<bool>("bias");
        QTest::newRow("16 rows, 512 columns (direct kernel, chunks)") << 16 << 512 << true;
        QTest::newRow("3 rows, 100 columns, no bias") << 3 << 100 << false;
        QTest::newRow("600 rows, 200 columns (direct kernel)") << 600 << 200 << true;
        QTest::newRow("600 rows, 64 columns (one chunk: blocks of rows for the threads)") << 600 << 64 << true;
        QTest::newRow("130 rows, 40 columns (one chunk, two blocks of 65 rows)") << 130 << 40 << false;
        QTest::newRow("1100 rows, 200 columns (two blocks of rows)") << 1100 << 200 << true;
        QTest::newRow("2100 rows, 100 columns (three blocks of rows)") << 2100 << 100 << true;
        QTest::newRow("0 rows") << 0 << 64 << true;
    }

    void linearColumnsSharedByThreadsMatchesDouble()
    {
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(bool, bias);
        const Matrix x = randomMatrix(rows, 96, 5);
        const Matrix w = randomMatrix(96, cols, 6);
        const RowVector b = bias ? RowVector(randomMatrix(1, cols, 7)) : RowVector();
        Matrix out(rows, cols);
        bool finite = true;
#pragma omp parallel num_threads(2) reduction(&& : finite)
        finite = linearColumns(x, w, bias ? b.data() : nullptr, out);
        QVERIFY(finite);
        if (rows > 0)
            QVERIFY2(beyondProductBound(out, x, w, b).isEmpty(), qPrintable(beyondProductBound(out, x, w, b)));
    }

    void linearColumnsFindsANonFiniteWeightInAnyChunk_data()
    {
        QTest::addColumn<int>("row");
        QTest::addColumn<int>("col");
        QTest::addColumn<float>("value");
        QTest::addColumn<bool>("inBias");
        QTest::newRow("NaN, first column") << 0 << 0 << kNaN << false;
        QTest::newRow("+inf, last column, last row") << 95 << 499 << kInf << false;
        QTest::newRow("-inf, middle chunk") << 40 << 250 << -kInf << false;
        QTest::newRow("NaN in the bias, last entry") << 0 << 499 << kNaN << true;
    }

    void linearColumnsFindsANonFiniteWeightInAnyChunk()
    {
        QFETCH(int, row);
        QFETCH(int, col);
        QFETCH(float, value);
        QFETCH(bool, inBias);
        Matrix x = randomMatrix(4, 96, 8);
        Matrix w = randomMatrix(96, 500, 9);
        RowVector b = randomMatrix(1, 500, 10);
        if (inBias)
            b(col) = value;
        else
            w(row, col) = value;
        Matrix out(4, 500);
        // The answer comes from the first row of the product: a zero there (0 * inf is NaN) and
        // rows past the direct kernel's one block must not hide the fault.
        for (const char* input : {"random", "first row zero", "1100 rows"}) {
            if (input == std::string_view("first row zero"))
                x.row(0).setZero();
            if (input == std::string_view("1100 rows"))
                x = randomMatrix(1100, 96, 8);
            out.resize(x.rows(), 500);
            for (int threads : {1, 2}) {
                bool finite = true;
#pragma omp parallel num_threads(threads) reduction(&& : finite)
                finite = linearColumns(x, w, b.data(), out);
                QVERIFY2(!finite,
                         qPrintable(QStringLiteral("%1, %2 thread(s)").arg(QLatin1String(input)).arg(threads)));
            }
        }
    }

    void linearColumnsReportsAnOverflowingProduct()
    {
        // Finite weights and inputs whose sums leave float32's range: as unusable as a NaN weight.
        const Matrix x = Matrix::Constant(3, 96, 1e20f);
        Matrix w = randomMatrix(96, 200, 12);
        Matrix out(3, 200);
        bool finite = true;
#pragma omp parallel num_threads(2) reduction(&& : finite)
        finite = linearColumns(x, w, nullptr, out);
        QVERIFY(finite);  // |sum| <= 96 * 1e20 * |w|: in range
        w.col(150).setConstant(1e20f);
#pragma omp parallel num_threads(2) reduction(&& : finite)
        finite = linearColumns(x, w, nullptr, out);
        QVERIFY(!finite);
    }

    void engineNamesAnOverflowAsSuch()
    {
        AttentionWeights w = *AttentionWeights::random(16, 16, 2, 1);
        w.in_proj.col(20).setConstant(3e38f);  // finite, as validate() sees it
        QVERIFY(w.validate().ok());
        const Matrix x = Matrix::Constant(4, 16, 10.0f);
        QCOMPARE(AttentionEngine::forward(x, w).error(),
                 QStringLiteral("the projections overflow float32: the inputs or the weights are too large"));
    }

    void allFiniteAnswersLikeEigen()
    {
        Matrix m = randomMatrix(7, 33, 11) * 1e38f;  // large but finite: x * 0 is still 0
        QVERIFY(allFinite(m));
        QVERIFY(allFinite(Matrix(0, 5)));
        m(3, 3) = -0.0f;
        QVERIFY(allFinite(m));
        for (float bad : {kNaN, kInf, -kInf}) {
            Matrix n = m;
            n(6, 32) = bad;
            QVERIFY(!allFinite(n));
            QVERIFY(!allFinite(n.block(5, 30, 2, 3)));  // on blocks too
            QVERIFY(allFinite(n.block(0, 0, 6, 32)));
        }
    }

    void validateShapesSkipsOnlyTheFinitenessScan()
    {
        AttentionWeights w = *AttentionWeights::random(16, 16, 2, 1);
        w.out_proj(3, 4) = kNaN;
        QVERIFY(w.validateShapes().ok());
        QCOMPARE(w.validate().error(), QStringLiteral("the weights contain NaN or infinite values"));
        w.in_bias.resize(5);
        QVERIFY(!w.validateShapes().ok());
        QCOMPARE(w.validateShapes().error(), w.validate().error());
    }

    void engineRefusesNonFiniteWeightsWherever_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("d_model");
        QTest::addColumn<QString>("where");
        for (int tokens : {0, 1, 40, 700, 1100})  // no rows, serial, direct kernel, many rows, blocks of rows
            for (const char* where : {"in_proj", "in_bias", "out_proj", "out_bias", "out_bias without out_proj"})
                QTest::addRow("%d tokens, %s", tokens, where) << tokens << 64 << QString::fromLatin1(where);
        QTest::newRow("d_model 512, Wv") << 16 << 512 << QStringLiteral("in_proj");
    }

    void engineRefusesNonFiniteWeightsWherever()
    {
        QFETCH(int, tokens);
        QFETCH(int, d_model);
        QFETCH(QString, where);
        AttentionWeights w = *AttentionWeights::random(d_model, d_model, 4, 2);
        if (where == QLatin1String("in_proj"))
            w.in_proj(d_model - 1, 3 * d_model - 1) = kNaN;  // the last column of Wv
        else if (where == QLatin1String("in_bias"))
            w.in_bias(d_model + 5) = kInf;
        else if (where == QLatin1String("out_proj"))
            w.out_proj(2, d_model / 2) = -kInf;
        else if (where == QLatin1String("out_bias"))
            w.out_bias(0) = kNaN;
        else {
            w.out_proj = Matrix();
            w.out_bias(d_model - 1) = kNaN;
        }
        const Matrix x = randomMatrix(tokens, d_model, 3);
        const Result<AttentionTrace> trace = AttentionEngine::forward(x, w);
        QVERIFY(!trace.ok());
        QCOMPARE(trace.error(), QStringLiteral("the weights contain NaN or infinite values"));
    }

    void engineReportsTheWeightsFaultBeforeTheInputs()
    {
        // As before the finiteness check moved into the projections: validate() comes first.
        AttentionWeights w = *AttentionWeights::random(8, 8, 2, 4);
        w.in_proj(0, 0) = kNaN;
        Matrix x = randomMatrix(3, 8, 5);
        x(1, 1) = kInf;
        QCOMPARE(AttentionEngine::forward(x, w).error(), QStringLiteral("the weights contain NaN or infinite values"));
        const Matrix wrong_width = randomMatrix(3, 9, 6);
        QCOMPARE(AttentionEngine::forward(wrong_width, w).error(),
                 QStringLiteral("the weights contain NaN or infinite values"));
        // With finite weights the input's own error is reported.
        w.in_proj(0, 0) = 0.5f;
        QCOMPARE(AttentionEngine::forward(x, w).error(),
                 QStringLiteral("the query input contains NaN or infinite values"));
    }
};

REGISTER_TEST_SUITE(TestLinearColumns, QCoreApplication)
#include "test_linear_columns.moc"
