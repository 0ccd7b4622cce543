// Speed of one full multi-head attention forward pass, per shape.
//
// Not a test: tests/CMakeLists.txt builds it but does not register it with CTest, so the suite
// stays fast. Run `build/tests/bench/attention_bench -csv` (scripts/bench_table.py compares it with
// PyTorch, whose scripts/bench_torch.py names its rows exactly like these).
//
// Each row times AttentionEngine::forward on random weights (input_dim = d_model, PyTorch's
// initialisation) and a random input, with TraceDetail::Weights: the output and every head's
// (seq_len, seq_len) weights, which is what nn.MultiheadAttention returns with need_weights=True
// and average_attn_weights=False.

#include "core/attention/AttentionEngine.h"
#include "core/attention/AttentionWeights.h"
#include "core/base/SplitMix64.h"

#include <QtTest>

#include <array>
#include <utility>

using namespace attn;

class AttentionBench : public QObject {
    Q_OBJECT

private slots:
    void forward_data();
    void forward();
};

void AttentionBench::forward_data()
{
    QTest::addColumn<int>("seq_len");
    QTest::addColumn<int>("d_model");
    QTest::addColumn<int>("num_heads");
    QTest::addColumn<bool>("causal");

    constexpr std::array<int, 9> seq_lens{8, 16, 32, 64, 128, 256, 512, 1024, 2048};
    constexpr std::array<std::pair<int, int>, 3> models{{{64, 4}, {512, 8}, {768, 12}}};
    for (auto [d_model, num_heads] : models) {
        for (int seq_len : seq_lens) {
            for (bool causal : {false, true}) {
                const QString name = QStringLiteral("T=%1 d=%2 h=%3%4")
                                         .arg(seq_len)
                                         .arg(d_model)
                                         .arg(num_heads)
                                         .arg(causal ? QStringLiteral(" causal") : QString());
                QTest::newRow(qPrintable(name)) << seq_len << d_model << num_heads << causal;
            }
        }
    }
}

void AttentionBench::forward()
{
    QFETCH(int, seq_len);
    QFETCH(int, d_model);
    QFETCH(int, num_heads);
    QFETCH(bool, causal);

    const Result<AttentionWeights> weights = AttentionWeights::random(d_model, d_model, num_heads, 7);
    QVERIFY2(weights.ok(), qPrintable(weights.error()));

    // Inputs of unit scale, like embeddings: uniform in [-1, 1).
    SplitMix64 rng(42);
    Matrix x(seq_len, d_model);  // (seq_len, d_model)
    for (Eigen::Index i = 0; i < x.size(); ++i)
        x.data()[i] = float(rng.uniform(-1.0, 1.0));

    AttentionOptions options;
    options.causal = causal;
    options.detail = TraceDetail::Weights;

    // One untimed pass: checks the pass succeeds and warms caches and the thread pool.
    {
        const Result<AttentionTrace> trace = AttentionEngine::forward(x, *weights, options);
        QVERIFY2(trace.ok(), qPrintable(trace.error()));
        QCOMPARE(int(trace->weights.size()), num_heads);
        QCOMPARE(trace->output.rows(), Eigen::Index(seq_len));
    }

    QBENCHMARK
    {
        const Result<AttentionTrace> trace = AttentionEngine::forward(x, *weights, options);
        if (!trace.ok())
            QFAIL(qPrintable(trace.error()));
    }
}

QTEST_GUILESS_MAIN(AttentionBench)
#include "attention_bench.moc"
