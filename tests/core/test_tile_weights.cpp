// The products on AMX tiles (TileWeights): x split into three bfloat16 parts times weights that
// are bfloat16, against the float64 product with the same tolerance as the float32 kernels'; the
// padding of rows, inner and columns to whole tiles; the blocks the threads and the cache split a
// product into; which weights move into tiles. Skipped, with a message, on a processor without
// tiles, where the float32 product (test_linear_columns) is the only one.

#include "core/base/SplitMix64.h"
#include "core/model/TransformerModel.h"
#include "core/ops/TileWeights.h"

#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>
#include <limits>

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

// Rounded to the nearest bfloat16 (ties to even), as a BF16 checkpoint holds its values.
Matrix bfloat16Matrix(int rows, int cols, std::uint64_t seed)
{
    return randomMatrix(rows, cols, seed).unaryExpr([](float v) { return float(Eigen::bfloat16(v)); });
}

// |x w + b - reference| allowed per element: one float32 pass's error bound
// (tests/support/Float32Bounds.h), which counts the tiles' three bfloat16 parts of each x.
MatrixD allowed(const Matrix& x, const Matrix& w, const RowVector& bias)
{
    const DoubleMatrix no_difference = DoubleMatrix::Zero(x.rows(), x.cols());
    return productBound(x, no_difference, w, bias, 1).bound;
}

// The largest |out - reference| / allowed.
double worstRatio(const Matrix& out, const MatrixD& reference, const MatrixD& limit)
{
    return ((out.cast<double>() - reference).cwiseAbs().array() / (limit.array() + 1e-300)).maxCoeff();
}

}  // namespace

class TestTileWeights : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        if (!TileWeights::available())
            QSKIP("this processor has no AMX tiles (or the kernel does not grant them): products use float32");
    }

    void packKeepsEveryValue()
    {
        const Matrix w = bfloat16Matrix(37, 21, 1);
        const auto tiles = TileWeights::pack(w);
        QVERIFY(tiles);
        QCOMPARE(tiles->rows(), 37);
        QCOMPARE(tiles->cols(), 21);
        QCOMPARE(tiles->paddedRows(), 64);
        QCOMPARE(tiles->paddedCols(), 32);
        for (int i = 0; i < tiles->paddedRows(); ++i)
            for (int j = 0; j < tiles->paddedCols(); ++j)
                QCOMPARE(tiles->at(i, j), i < 37 && j < 21 ? w(i, j) : 0.0f);
    }

    void packRefusesWhatIsNotBfloat16()
    {
        Matrix w = bfloat16Matrix(8, 8, 2);
        w(3, 4) = 0.1f;  // 0x3dcccccd: low bits set
        QVERIFY(!TileWeights::pack(w));
        w(3, 4) = std::numeric_limits<float>::infinity();  // a bfloat16, but not finite
        QVERIFY(!TileWeights::pack(w));
        w(3, 4) = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(!TileWeights::pack(w));
        w(3, 4) = 0.5f;
        QVERIFY(TileWeights::pack(w));
    }

    void productMatchesDouble_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("inner");
        QTest::addColumn<int>("cols");
        // Rows around the 16-row tile and the 32-row pair, inner around the 32-value tile row,
        // columns around the 32-column pair; then shapes large enough for both threads: 256 rows
        // (each thread its rows, in blocks of 128), 24 rows (the columns shared), and an inner
        // dimension beyond one block of parts (4160 x 6 bytes x 32 rows > 768 KiB).
        for (int rows : {1, 15, 16, 17, 31, 32, 33, 64, 100})
            for (int inner : {1, 31, 32, 40, 96})
                for (int cols : {1, 16, 17, 32, 33, 100})
                    QTest::addRow("%d x %d x %d", rows, inner, cols) << rows << inner << cols;
        QTest::newRow("256 x 896 x 640") << 256 << 896 << 640;
        QTest::newRow("24 x 4096 x 96") << 24 << 4096 << 96;
        QTest::newRow("40 x 4160 x 64") << 40 << 4160 << 64;
        QTest::newRow("70 x 4864 x 96") << 70 << 4864 << 96;
    }

    void productMatchesDouble()
    {
        QFETCH(int, rows);
        QFETCH(int, inner);
        QFETCH(int, cols);
        const Matrix x = randomMatrix(rows, inner, 10 + rows);
        const Matrix w = bfloat16Matrix(inner, cols, 20 + cols);
        const RowVector bias = randomMatrix(1, cols, 30);
        const auto tiles = TileWeights::pack(w);
        QVERIFY(tiles);
        MatrixD reference = x.cast<double>() * w.cast<double>();
        reference.rowwise() += bias.cast<double>();
        // out a block of a wider matrix: a row stride that is not the product's width
        Matrix wide = Matrix::Constant(rows, cols + 7, -5.0f);
        tileProduct(x, *tiles, bias.data(), wide.leftCols(cols));
        QVERIFY2(worstRatio(wide.leftCols(cols), reference, allowed(x, w, bias)) <= 1.0, "beyond float32 rounding");
        QVERIFY((wide.rightCols(7).array() == -5.0f).all());  // nothing written past the product

        Matrix out(rows, cols);
        tileProduct(x, *tiles, nullptr, out);
        reference.rowwise() -= bias.cast<double>();
        QVERIFY2(worstRatio(out, reference, allowed(x, w, {})) <= 1.0, "beyond float32 rounding, no bias");
    }

    // The split keeps all of float32's 24 bits, over its whole range: x = hi + mid + lo exactly.
    void splitKeepsEveryBitOfX()
    {
        Matrix x(16, 32);
        SplitMix64 rng(5);
        for (Eigen::Index i = 0; i < x.size(); ++i)
            x.data()[i] = float(std::ldexp(rng.uniform(-1.0, 1.0), int(rng.uniform(-90, 90))));
        // w the identity: out = x, exactly, when the three parts sum to x
        const Matrix w = Matrix::Identity(32, 32);
        const auto tiles = TileWeights::pack(w);
        QVERIFY(tiles);
        Matrix out(16, 32);
        tileProduct(x, *tiles, nullptr, out);
        QCOMPARE(out, x);
    }

    void bfloat16CheckpointsMoveTheirMlpsIntoTiles()
    {
        auto bf16 = TransformerModel::load(modelFixture("llama-tiny"));  // BF16
        QVERIFY2(bf16, qPrintable(bf16.error()));
        const LayerWeights& layer = (*bf16)->weights().layers[0];
        QVERIFY(layer.mlp_gate.tiles() && layer.mlp_in.tiles() && layer.mlp_out.tiles());
        QVERIFY(!layer.mlp_in.hasValues());                                // the float32 copy freed
        auto f32 = TransformerModel::load(modelFixture("gpt2-prefixed"));  // F32, read in place
        QVERIFY2(f32, qPrintable(f32.error()));
        QVERIFY(!(*f32)->weights().layers[0].mlp_in.tiles());
    }
};

REGISTER_TEST_SUITE(TestTileWeights, QCoreApplication)
#include "test_tile_weights.moc"
