// The numerical steps a whole model adds to the engine: LayerNorm and the activation functions
// against their float64 formulas, linear() against a plain product, and the compact attention
// maps against the matrices they keep.
#include "core/base/SplitMix64.h"
#include "core/model/AttentionMaps.h"
#include "core/ops/Activation.h"
#include "core/ops/LayerNorm.h"
#include "core/ops/Linear.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <numbers>

using namespace attn;
using namespace attn::testing;

namespace {

Matrix randomMatrix(int rows, int cols, double scale, std::uint64_t seed)
{
    SplitMix64 rng(seed);
    Matrix m(rows, cols);
    for (float& v : m.reshaped())
        v = float(rng.uniform(-scale, scale));
    return m;
}

using Formula = std::function<double(double)>;

}  // namespace

class TestModelOps : public QObject {
    Q_OBJECT

private slots:
    void layerNormMatchesFloat64()
    {
        // Rows with a large mean and a small spread: the two-pass variance keeps their digits.
        Matrix x = randomMatrix(7, 768, 1.0, 1);
        x.row(3).array() += 1000.0f;
        const RowVector gamma = randomMatrix(1, 768, 2.0, 2);
        const RowVector beta = randomMatrix(1, 768, 1.0, 3);
        Matrix y(7, 768);
        layerNorm(x, gamma, beta, 1e-5f, y);
        // Mean, variance and z = (x - mean) / std are taken in float64 (by the test too): each within
        // gamma_{2 n + 8} in float64 of |z| + mean |x| / std, n = 768, far below float32's u. Then z is
        // rounded to float32 (u |z|) and z gamma + beta takes two float32 roundings (gamma_2).
        const double n = double(x.cols());
        const double double_gamma = (2 * n + 8) * 0x1p-53 / (1 - (2 * n + 8) * 0x1p-53);
        double worst = 0;
        for (int r = 0; r < x.rows(); ++r) {
            const Eigen::RowVectorXd row = x.row(r).cast<double>();
            const double mean = row.mean();
            const double variance = (row.array() - mean).square().mean();
            const double std_dev = std::sqrt(variance + 1e-5);
            const Eigen::ArrayXd z = ((row.array() - mean) / std_dev).transpose();
            const Eigen::ArrayXd g = gamma.cast<double>().array().abs().transpose();
            const Eigen::ArrayXd want =
                z * gamma.cast<double>().array().transpose() + beta.cast<double>().array().transpose();
            const Eigen::ArrayXd z_error =
                2 * double_gamma * (z.abs() + row.array().abs().mean() / std_dev) + kUnitRoundoff * z.abs();
            const Eigen::ArrayXd bound =
                g * z_error + gammaOf(2) * ((z.abs() + z_error) * g + beta.cast<double>().array().abs().transpose());
            const Eigen::ArrayXd error = (y.row(r).cast<double>().array().transpose() - want).abs();
            QVERIFY2((error <= bound).all(),
                     qPrintable(QStringLiteral("row %1: %2 beyond its bound").arg(r).arg((error / bound).maxCoeff())));
            worst = std::max(worst, (error / bound).maxCoeff());
        }
        qInfo("worst error %.3g of the float32 bound", worst);

        Matrix in_place = x;
        layerNorm(in_place, gamma, beta, 1e-5f, in_place);
        QCOMPARE(in_place, y);
    }

    void activationsMatchTheirFormulas_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<Formula>("formula");
        const double c = std::sqrt(2.0 / std::numbers::pi);
        QTest::newRow("gelu (erf)") << "gelu"
                                    << Formula([](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); });
        QTest::newRow("gelu_new (tanh)") << "gelu_new" << Formula([c](double x) {
            return 0.5 * x * (1 + std::tanh(c * (x + 0.044715 * x * x * x)));
        });
        QTest::newRow("gelu_pytorch_tanh")
            << "gelu_pytorch_tanh"
            << Formula([c](double x) { return 0.5 * x * (1 + std::tanh(c * (x + 0.044715 * x * x * x))); });
        QTest::newRow("gelu_fast") << "gelu_fast" << Formula([](double x) {
            return 0.5 * x * (1 + std::tanh(x * 0.7978845608 * (1 + 0.044715 * x * x)));
        });
        QTest::newRow("quick_gelu") << "quick_gelu" << Formula([](double x) { return x / (1 + std::exp(-1.702 * x)); });
        QTest::newRow("relu") << "relu" << Formula([](double x) { return std::max(x, 0.0); });
        QTest::newRow("silu") << "silu" << Formula([](double x) { return x / (1 + std::exp(-x)); });
        QTest::newRow("swish") << "swish" << Formula([](double x) { return x / (1 + std::exp(-x)); });
        QTest::newRow("tanh") << "tanh" << Formula([](double x) { return std::tanh(x); });
        QTest::newRow("sigmoid") << "sigmoid" << Formula([](double x) { return 1 / (1 + std::exp(-x)); });
        QTest::newRow("linear") << "linear" << Formula([](double x) { return x; });
    }
    void activationsMatchTheirFormulas()
    {
        QFETCH(QString, name);
        QFETCH(Formula, formula);
        const auto activation = activationFromName(name);
        QVERIFY(activation);
        Matrix x(1, 4001);  // -10 .. 10 in steps of 0.005
        for (int i = 0; i < x.cols(); ++i)
            x(0, i) = float(-10.0 + 0.005 * i);
        Matrix y = x;
        applyActivation(*activation, y);
        double worst = 0;
        for (int i = 0; i < x.cols(); ++i) {
            const double want = formula(double(x(0, i)));
            worst = std::max(worst, std::abs(double(y(0, i)) - want) / std::max(1.0, std::abs(want)));
        }
        // A few float32 ulps (Eigen's erf and tanh are rational approximations of that accuracy).
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    }

    void unknownActivationsAreNamed()
    {
        QVERIFY(!activationFromName("gelu_10"));
        QVERIFY(!activationFromName("GELU"));
        QVERIFY(activationNames().contains("gelu_new"));
    }

    void linearIsThePlainProduct_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addRow("few rows: direct kernel") << 5;
        QTest::addRow("many rows: packed x") << 700;
        QTest::addRow("more than 1,024 rows: blocks of rows") << 1100;
    }
    void linearIsThePlainProduct()
    {
        QFETCH(int, rows);
        const Matrix x = randomMatrix(rows, 96, 1.0, 4);
        const Matrix w = randomMatrix(96, 200, 0.1, 5);
        const RowVector b = randomMatrix(1, 200, 0.1, 6);
        Matrix out(rows, 200);
        QVERIFY(linear(x, w, b.data(), out));
        const MatrixD want = (x.cast<double>() * w.cast<double>()).rowwise() + b.cast<double>();
        // One float32 pass's error bound (tests/support/Float32Bounds.h), any order of the sums.
        const DoubleMatrix no_difference = DoubleMatrix::Zero(x.rows(), x.cols());
        const QString beyond =
            beyondBound("x w + b", out, DoubleMatrix(want), productBound(x, no_difference, w, b, 1).bound);
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));

        Matrix bad = w;
        bad(50, 150) = NAN;
        QVERIFY(!linear(x, bad, b.data(), out));
    }

    void compactMapsKeepEveryWeight_data()
    {
        QTest::addColumn<bool>("causal");
        QTest::newRow("causal: lower triangles") << true;
        QTest::newRow("full") << false;
    }
    void compactMapsKeepEveryWeight()
    {
        QFETCH(bool, causal);
        const int layers = 2, heads = 3, seq_len = 9;
        AttentionMaps maps(layers, heads, seq_len, causal);
        std::vector<std::vector<Matrix>> given(layers);
        for (int l = 0; l < layers; ++l) {
            for (int h = 0; h < heads; ++h) {
                Matrix w = randomMatrix(seq_len, seq_len, 1.0, std::uint64_t(10 * l + h));
                if (causal)
                    w.triangularView<Eigen::StrictlyUpper>().setZero();
                given[size_t(l)].push_back(w);
            }
            std::vector<Matrix> copy = given[size_t(l)];
            maps.setLayer(l, std::move(copy));
        }
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h) {
                QCOMPARE(maps.head(l, h), given[size_t(l)][size_t(h)]);
                for (int i = 0; i < seq_len; ++i) {
                    QCOMPARE(maps.rowLength(i), causal ? i + 1 : seq_len);
                    for (int j = 0; j < seq_len; ++j)
                        QCOMPARE(maps.at(l, h, i, j), given[size_t(l)][size_t(h)](i, j));
                }
            }
        QCOMPARE(int(maps.layer(1).size()), heads);
    }
};

REGISTER_TEST_SUITE(TestModelOps, QCoreApplication)
#include "test_model_ops.moc"
