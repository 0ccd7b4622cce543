// Rotary positions by themselves: the frequencies of transformers' rope functions (default,
// linear, llama3) and the rotate_half rotation, against values written out by hand.
#include "core/model/RotaryEmbedding.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>
#include <numbers>

using namespace attn;
using namespace attn::testing;

namespace {

// How far a frequency 1 / theta^(2i/d) computed in float32 lies from the exact one, relatively: the
// exponent 2i/d is exact for these d, powf is within 1 ulp (glibc's documented bound: 2 u
// relatively) and the division rounds once more (u).
constexpr double kFrequencyError = 3 * kUnitRoundoff;

ModelConfig rotaryConfig(int rotary_dim, double theta)
{
    ModelConfig c;
    c.architecture = ModelArchitecture::Llama;
    c.rotary_dim = rotary_dim;
    c.rope_theta = theta;
    return c;
}

}  // namespace

class TestRotaryEmbedding : public QObject {
    Q_OBJECT

private slots:
    void defaultFrequencies()
    {
        // inv_freq_i = 1 / theta^(2i / d): d = 8, theta = 10000 -> 1, 0.1, 0.01, 0.001.
        const std::vector<float> f = RotaryEmbedding::inverseFrequencies(rotaryConfig(8, 10000));
        QCOMPARE(int(f.size()), 4);
        const double want[] = {1.0, 0.1, 0.01, 0.001};
        for (int i = 0; i < 4; ++i)
            QVERIFY2(std::abs(f[size_t(i)] - want[i]) <= kFrequencyError * want[i],
                     qPrintable(QString::number(f[size_t(i)])));
    }

    void linearScalingDividesEveryFrequency()
    {
        ModelConfig c = rotaryConfig(8, 10000);
        c.rope_scaling.type = RopeScaling::Type::Linear;
        c.rope_scaling.factor = 4;
        const std::vector<float> plain = RotaryEmbedding::inverseFrequencies(rotaryConfig(8, 10000));
        const std::vector<float> scaled = RotaryEmbedding::inverseFrequencies(c);
        for (size_t i = 0; i < plain.size(); ++i)
            QCOMPARE(scaled[i], plain[i] / 4);
    }

    void llama3KeepsDividesAndSmoothsByWavelength()
    {
        // original 64, low 1, high 4: wavelengths under 16 kept, over 64 divided by the factor,
        // between them (1 - s) f / factor + s f with s = (64 / wavelength - 1) / 3.
        ModelConfig c = rotaryConfig(8, 10000);
        c.rope_scaling = {RopeScaling::Type::Llama3, 8.0, 1.0, 4.0, 64};
        const std::vector<float> f = RotaryEmbedding::inverseFrequencies(c);
        QCOMPARE(f[0], 1.0f);  // wavelength 6.3: kept
        // 62.8: smoothed, in double from the float32 frequency 0.1 (within kFrequencyError of it).
        // The smoothed value grows with the frequency, so it moves at most as far as at the ends of
        // that interval, and its rounding to float32 adds u.
        const auto smoothed = [](double frequency) {
            const double s = (64 / (2 * std::numbers::pi / frequency) - 1) / 3;
            return (1 - s) * frequency / 8 + s * frequency;
        };
        const double want = smoothed(0.1);
        const double bound =
            std::max(smoothed(0.1 * (1 + kFrequencyError)) - want, want - smoothed(0.1 * (1 - kFrequencyError))) +
            kUnitRoundoff * want;
        QVERIFY2(std::abs(f[1] - want) <= bound, qPrintable(QString::number(std::abs(f[1] - want) / bound)));
        // 628 and 6283: divided by 8, exactly.
        QVERIFY(std::abs(f[2] - 0.01 / 8) <= kFrequencyError * 0.01 / 8);
        QVERIFY(std::abs(f[3] - 0.001 / 8) <= kFrequencyError * 0.001 / 8);
    }

    void rotatesPairsHalfAHeadApart()
    {
        // Head dim 4, rotary dim 4: pairs (0, 2) and (1, 3); position 1 turns pair i by
        // inv_freq_i radians (1 and 0.01 at theta 10000); the second head likewise.
        const ModelConfig c = rotaryConfig(4, 10000);
        const RotaryEmbedding rotary(c, 2);
        Matrix x(2, 8);               // (T, 2 heads x 4)
        x << 1, 2, 3, 4, 5, 6, 7, 8,  //
            1, 2, 3, 4, 5, 6, 7, 8;
        Matrix rotated = x;
        rotary.apply(rotated, 2, 4, 0);
        QCOMPARE(rotated.row(0), x.row(0));  // position 0: no turn
        for (int head = 0; head < 2; ++head) {
            const int o = 4 * head;
            for (int i = 0; i < 2; ++i) {
                const double angle = i == 0 ? 1.0 : 0.01;
                const double a = x(1, o + i), b = x(1, o + i + 2);
                // The float32 angle lies within kFrequencyError of it, and its cosine and sine are
                // rounded to float32 (u): the tables are within u + kFrequencyError angle; then
                // a c - b s rounds twice (gamma_2 of |a| + |b|).
                const double table_error = kUnitRoundoff + kFrequencyError * angle;
                const double bound = (std::abs(a) + std::abs(b)) * (table_error + gammaOf(2));
                QVERIFY(std::abs(rotated(1, o + i) - (a * std::cos(angle) - b * std::sin(angle))) <= bound);
                QVERIFY(std::abs(rotated(1, o + i + 2) - (b * std::cos(angle) + a * std::sin(angle))) <= bound);
            }
        }
    }

    void partialRotaryPassesTheRestThrough()
    {
        const RotaryEmbedding rotary(rotaryConfig(2, 10000), 3);  // GPT-NeoX style: 2 of 6 features
        Matrix x = Matrix::Constant(3, 6, 0.5f);                  // (T, 1 head x 6)
        rotary.apply(x, 1, 6, 0);
        QVERIFY(x.rightCols(4).isApprox(Matrix::Constant(3, 4, 0.5f)));
        // Angle 2 * 1 exactly; the tables rounded to float32 (u each) and 0.5 c - 0.5 s rounded twice.
        QVERIFY(std::abs(x(2, 0) - 0.5 * (std::cos(2.0) - std::sin(2.0))) <=
                (0.5 + 0.5) * (kUnitRoundoff + gammaOf(2)));
    }
};

REGISTER_TEST_SUITE(TestRotaryEmbedding, QCoreApplication)
#include "test_rotary_embedding.moc"
