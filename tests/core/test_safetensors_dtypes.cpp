// safetensors dtypes: F16 and BF16 decoded bit for bit (against Qt's qfloat16 for every F16
// pattern), and every weight dtype converted exactly when a file is loaded.

#include "tests/core/SafetensorsTestFiles.h"
#include "tests/support/TestSuite.h"

#include <bit>
#include <cmath>

using namespace attn;
using namespace attn::testing;

class TestSafetensorsDtypes : public QObject {
    Q_OBJECT

private slots:
    void halfMatchesQtForEveryBitPattern()
    {
        for (quint32 bits = 0; bits <= 0xffff; ++bits) {
            quint16 h = quint16(bits);
            qfloat16 reference;
            std::memcpy(static_cast<void*>(&reference), &h, 2);
            const float expected = float(reference);
            const float got = halfToFloat(h);
            if (std::isnan(expected))
                QVERIFY2(std::isnan(got), qPrintable(QString::number(bits, 16)));
            else
                QVERIFY2(std::bit_cast<quint32>(got) == std::bit_cast<quint32>(expected),
                         qPrintable(QString::number(bits, 16)));
        }
    }

    void knownConversions()
    {
        QCOMPARE(halfToFloat(0x3C00), 1.0f);
        QCOMPARE(halfToFloat(0x3555), 0.333251953125f);
        QCOMPARE(halfToFloat(0x0001), 5.9604644775390625e-08f);  // smallest subnormal, 2^-24
        QCOMPARE(halfToFloat(0x03FF), 6.097555160522461e-05f);   // largest subnormal
        QCOMPARE(halfToFloat(0x7BFF), 65504.0f);
        QCOMPARE(std::bit_cast<quint32>(halfToFloat(0x8000)), 0x80000000u);  // -0
        QVERIFY(std::isinf(halfToFloat(0xFC00)) && halfToFloat(0xFC00) < 0);
        QCOMPARE(bfloat16ToFloat(0x3F80), 1.0f);
        QCOMPARE(bfloat16ToFloat(0xC0A0), -5.0f);
        QCOMPARE(bfloat16ToFloat(0x3EAB), 0.333984375f);
        QCOMPARE(bfloat16ToFloat(0x7F7F), 3.3895313892515355e38f);
        QCOMPARE(bfloat16ToFloat(0x0001), 9.183549615799121e-41f);  // subnormal
    }

    void convertsWeightDtypesExactly_data()
    {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<std::vector<float>>("expected");
        // in_proj_weight (3, 2): E = 1, input_dim 2.
        QTest::newRow("F16") << "F16" << u16Bytes({0x3C00, 0xC000, 0x3555, 0x0001, 0x7BFF, 0x3800})
                             << std::vector<float>{1.0f,     -2.0f, 0.333251953125f, 5.9604644775390625e-08f,
                                                   65504.0f, 0.5f};
        QTest::newRow("BF16") << "BF16" << u16Bytes({0x3F80, 0xC0A0, 0x3EAB, 0x0001, 0x7F7F, 0x3F00})
                              << std::vector<float>{
                                     1.0f, -5.0f, 0.333984375f, 9.183549615799121e-41f, 3.3895313892515355e38f, 0.5f};
        QTest::newRow("F64") << "F64" << f64Bytes({0.1, -1e-3, 12345.678, 1e-40, -3.0e38, 0.5})
                             << std::vector<float>{0.1f, -1e-3f, 12345.678f, 1e-40f, -3.0e38f, 0.5f};
        QTest::newRow("F32") << "F32" << f32Bytes({1.5f, -0.25f, 3.0f, 4.0f, 5.0f, 6.0f})
                             << std::vector<float>{1.5f, -0.25f, 3.0f, 4.0f, 5.0f, 6.0f};
    }
    void convertsWeightDtypesExactly()
    {
        QFETCH(QString, dtype);
        QFETCH(QByteArray, data);
        QFETCH(std::vector<float>, expected);
        auto loaded =
            loadBytes(safetensors({{"in_proj_weight", dtype, {3, 2}, data}}, QJsonObject{{"num_heads", "1"}}));
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        // in_proj_weight row r is output r: in_proj = in_proj_weight^T, so in_proj(c, r) = value[r * 2 + c].
        const Matrix& in = loaded->weights.in_proj;
        QCOMPARE(in.rows(), 2);
        QCOMPARE(in.cols(), 3);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 2; ++c)
                QCOMPARE(in(c, r), expected[size_t(r * 2 + c)]);
    }
};

REGISTER_TEST_SUITE(TestSafetensorsDtypes, QCoreApplication)
#include "test_safetensors_dtypes.moc"
