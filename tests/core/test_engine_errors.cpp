// Every error the attention engine returns instead of asserting, and the scale setting's parser.
#include "core/attention/AttentionEngine.h"
#include "tests/support/EngineReference.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

using namespace attn;
using namespace attn::test;

class TestEngineErrors : public QObject {
    Q_OBJECT

private slots:
    void errorsAreValuesNotAsserts_data()
    {
        QTest::addColumn<int>("input_dim");
        QTest::addColumn<int>("d_model");
        QTest::addColumn<int>("heads");
        QTest::addColumn<QString>("expected");
        QTest::addRow("heads do not divide") << 512 << 512 << 7 << "not divisible by 7 heads";
        QTest::addRow("zero heads") << 8 << 8 << 0 << "positive";
        QTest::addRow("negative d_model") << 8 << -8 << 1 << "positive";
        QTest::addRow("absurd size") << 60000 << 60000 << 1 << "would not fit";
        QTest::addRow("too wide") << 8 << 1 << 1 << "";
    }
    void errorsAreValuesNotAsserts()
    {
        QFETCH(int, input_dim);
        QFETCH(int, d_model);
        QFETCH(int, heads);
        QFETCH(QString, expected);
        const auto random = AttentionWeights::random(input_dim, d_model, heads, 0);
        if (expected.isEmpty()) {
            QVERIFY(random.ok());
            return;
        }
        QVERIFY(!random.ok());
        QVERIFY2(random.error().contains(expected), qPrintable(random.error()));
        QVERIFY(!AttentionWeights::identity(input_dim, d_model, heads).ok());
    }

    void engineRefusesMismatchedOrNonFiniteInput()
    {
        const AttentionWeights w = randomWeights(8, 8, 2);
        auto wrongWidth = AttentionEngine::forward(randomMatrix(3, 7, 1), w);
        QVERIFY(!wrongWidth.ok());
        QVERIFY2(wrongWidth.error().contains("7 columns"), qPrintable(wrongWidth.error()));
        Matrix nan = randomMatrix(3, 8, 1);
        nan(1, 2) = std::numeric_limits<float>::quiet_NaN();
        auto notFinite = AttentionEngine::forward(nan, w);
        QVERIFY(!notFinite.ok());
        QVERIFY(notFinite.error().contains("NaN"));
        AttentionWeights broken = w;
        broken.out_proj(0, 0) = std::numeric_limits<float>::infinity();
        QVERIFY(!AttentionEngine::forward(randomMatrix(3, 8, 1), broken).ok());
        AttentionOptions padding;
        padding.key_padding = {true};
        QVERIFY(!AttentionEngine::forward(randomMatrix(3, 8, 1), w, padding).ok());
        QVERIFY(!AttentionEngine::checkSize(100000, 100000, 8, TraceDetail::Probabilities).ok());
        QVERIFY(AttentionEngine::checkSize(2048, 2048, 12, TraceDetail::Full).ok());
    }

    void scaleSettingParsesAndRefuses()
    {
        QCOMPARE(ScaleSetting::parse("sqrt").value().divisor(64), 8.0);
        QCOMPARE(ScaleSetting::parse("none").value().divisor(64), 1.0);
        QCOMPARE(ScaleSetting::parse("2.5").value().divisor(64), 2.5);
        for (const char* bad : {"0", "-1", "nan", "inf", "abc", ""})
            QVERIFY2(!ScaleSetting::parse(bad).ok(), bad);
    }
};

REGISTER_TEST_SUITE(TestEngineErrors, QCoreApplication)
#include "test_engine_errors.moc"
