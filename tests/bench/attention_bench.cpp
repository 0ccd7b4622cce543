// Speed of one full multi-head attention forward pass, per shape.
//
// Not a test: tests/CMakeLists.txt builds it but does not register it with CTest, so the suite
// stays fast. Run `build/tests/bench/attention_bench -csv` (scripts/bench_table.py compares it with
// PyTorch, whose scripts/bench_torch.py names its rows exactly like these).
//
// Each row times AttentionEngine::forward on random weights (input_dim = d_model, PyTorch's
// initialisation) and a random input, with TraceDetail::Probabilities: the output and every head's
// (seq_len, seq_len) weights, which is what nn.MultiheadAttention returns with need_weights=True
// and average_attn_weights=False. Freed memory is kept for reuse, as the program keeps it.
//
// `attention_bench breakdown` prints where one pass's time goes, step by step, in CPU time of one
// thread (which the machine's other processes do not inflate), with the GFLOP/s of each product
// (BREAKDOWN_THREADS=2: on two threads, in wall-clock time);
// `attention_bench fmaPeak` the float32 multiply-add peak of one core that those are measured against;
// `attention_bench bf16DotPeak` the same for AVX512_BF16's bfloat16 dot products, where the processor
// has them.

#include "core/attention/AttentionEngine.h"
#include "core/attention/AttentionWeights.h"
#include "core/attention/BlockBuffer.h"
#include "core/attention/HeadAttention.h"
#include "core/attention/MaskedSoftmax.h"
#include "core/attention/Projections.h"
#include "core/base/MemoryReuse.h"
#include "core/base/SplitMix64.h"
#include "core/ops/LinearColumns.h"
#include "core/ops/StreamingCopy.h"
#include "core/ops/Transpose.h"

#include <QtTest>

#include <omp.h>

#include <Eigen/Core>

#if defined(__AVX512BF16__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <functional>
#include <utility>
#include <vector>

using namespace attn;

class AttentionBench : public QObject {
    Q_OBJECT

private slots:
    // As the program does (app/main.cpp): without it glibc hands every freed weight matrix back to
    // the kernel and each pass faults its pages in again, which doubled the CPU time of a pass at
    // T = 64-512 (d_model 64) on one thread, and measured a cost the program never pays.
    void initTestCase() { keepFreedBlocksForReuse(); }
    void forward_data();
    void forward();
    void breakdown();
    void fmaPeak();
    void bf16DotPeak();
};

namespace {

Matrix randomInput(int seq_len, int d_model)
{
    SplitMix64 rng(42);
    Matrix x(seq_len, d_model);  // (seq_len, d_model)
    for (Eigen::Index i = 0; i < x.size(); ++i)
        x.data()[i] = float(rng.uniform(-1.0, 1.0));
    return x;
}

double threadCpuMs()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) * 1e-6;
}

// The least CPU time of one thread that `step` took over repeats lasting at least 20 ms in all.
double bestCpuMs(const std::function<void()>& step)
{
    double best = 1e30;
    double spent = 0;
    for (int repeat = 0; repeat < 3 || spent < 20.0; ++repeat) {
        const double start = threadCpuMs();
        step();
        const double ms = threadCpuMs() - start;
        best = std::min(best, ms);
        spent += ms;
    }
    return best;
}

// The least wall-clock time that `step` took over repeats lasting at least 20 ms in all.
double bestWallMs(const std::function<void()>& step)
{
    double best = 1e30;
    double spent = 0;
    for (int repeat = 0; repeat < 3 || spent < 20.0; ++repeat) {
        const auto start = std::chrono::steady_clock::now();
        step();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        best = std::min(best, ms);
        spent += ms;
    }
    return best;
}

}  // namespace

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
    options.detail = TraceDetail::Probabilities;

    // One untimed pass: checks the pass succeeds and warms caches and the thread pool.
    {
        const Result<AttentionTrace> trace = AttentionEngine::forward(x, *weights, options);
        QVERIFY2(trace.ok(), qPrintable(trace.error()));
        QCOMPARE(int(trace->probabilities.size()), num_heads);
        QCOMPARE(trace->output.rows(), Eigen::Index(seq_len));
    }

    QBENCHMARK
    {
        const Result<AttentionTrace> trace = AttentionEngine::forward(x, *weights, options);
        if (!trace.ok())
            QFAIL(qPrintable(trace.error()));
    }
}

// The steps of AttentionEngine::forward one by one, as HeadAttention.cpp runs them per head and
// block of 64 queries; "pass" is the whole forward, "rest" what it spends outside the timed steps
// (checks, allocation, the first touch of fresh memory). On one thread in its CPU time, or with
// BREAKDOWN_THREADS=n on n threads in wall-clock time, the blocks shared out as the pass shares
// them (each step then against n cores' peak).
void AttentionBench::breakdown()
{
    const int saved_threads = omp_get_max_threads();
    const int threads = std::max(1, qEnvironmentVariableIntValue("BREAKDOWN_THREADS"));
    omp_set_num_threads(threads);
    const auto bestMs = [threads](const std::function<void()>& step) {
        return threads == 1 ? bestCpuMs(step) : bestWallMs(step);
    };
    constexpr int kBlock = 64;
    for (auto [d_model, num_heads] : std::array<std::pair<int, int>, 3>{{{64, 4}, {512, 8}, {768, 12}}}) {
        for (int seq_len : {8, 128, 512, 2048}) {
            for (bool causal : {false, true}) {
                const AttentionWeights weights = AttentionWeights::random(d_model, d_model, num_heads, 7).value();
                const Matrix x = randomInput(seq_len, d_model);
                AttentionOptions options;
                options.causal = causal;
                options.detail = TraceDetail::Probabilities;
                AttentionTrace trace = AttentionEngine::forward(x, weights, options).value();
                const int head_dim = trace.head_dim;
                const float inv_scale = 1.0f / trace.scale;

                const double pass = bestMs([&] { (void)AttentionEngine::forward(x, weights, options); });
                const double projections =
                    bestMs([&] { projectQueriesKeysValues(x, x, x, weights, trace.q, trace.k, trace.v); });
                Matrix keys_t(d_model, seq_len);               // (d_model, seq_len): K_h^T one head under the other
                Matrix values(num_heads * seq_len, head_dim);  // V_h one head under the other
                const double copies = bestMs([&] {
#pragma omp parallel for schedule(static)
                    for (int h = 0; h < num_heads; ++h) {
                        transposeInto(trace.kHead(h), keys_t.middleRows(h * head_dim, head_dim));
                        values.middleRows(h * seq_len, seq_len) = trace.vHead(h);
                    }
                });
                const auto visibleKeys = [&](int first, int rows) {
                    return causal ? std::min(seq_len, first + rows) : seq_len;
                };
                const int blocks = (seq_len + kBlock - 1) / kBlock;
                const auto forEachBlock = [&](const std::function<void(int, int, int, int)>& step) {
#pragma omp parallel for schedule(dynamic, 1)
                    for (int task = 0; task < num_heads * blocks; ++task) {
                        const int first = task % blocks * kBlock;
                        const int rows = std::min(kBlock, seq_len - first);
                        step(task / blocks, first, rows, visibleKeys(first, rows));
                    }
                };
                // Each block where the pass computes it: in the kept weights, or from kStreamedKeys
                // keys on in a reused buffer of its thread, then streamed to the kept weights.
                const bool streamed = seq_len >= kStreamedKeys;
                std::vector<BlockBuffer> buffers(size_t(threads), BlockBuffer(streamed ? kBlock : 0, seq_len));
                const auto blockOf = [&](int h, int first, int rows) {
                    return streamed ? buffers[size_t(omp_get_thread_num())].rows(first, rows)
                                    : BlockRef(trace.probabilities[size_t(h)].middleRows(first, rows));
                };
                const double scores = bestMs([&] {
                    forEachBlock([&](int h, int first, int rows, int keys) {
                        directProduct(trace.qHead(h).middleRows(first, rows),
                                      keys_t.middleRows(h * head_dim, head_dim).leftCols(keys),
                                      blockOf(h, first, rows).leftCols(keys));
                    });
                });
                const double softmax = bestMs([&] {
                    forEachBlock([&](int h, int first, int rows, int) {
                        maskedSoftmax(blockOf(h, first, rows), first, causal, {}, inv_scale);
                    });
                });
                const double weighted = bestMs([&] {
                    forEachBlock([&](int h, int first, int rows, int keys) {
                        directProduct(blockOf(h, first, rows).leftCols(keys),
                                      values.middleRows(h * seq_len, seq_len).topRows(keys),
                                      trace.concat.block(first, h * head_dim, rows, head_dim));
                    });
                });
                const double streamed_out = !streamed ? 0.0 : bestMs([&] {
                    forEachBlock([&](int h, int first, int rows, int) {
                        copyStreaming(blockOf(h, first, rows), trace.probabilities[size_t(h)].middleRows(first, rows));
                    });
                });
                const double output = bestMs([&] { projectOutput(trace.concat, weights, trace.output); });

                // Multiply-adds of each product (the causal T^2 products skip what the mask hides).
                const double projection_flops = 2.0 * 3 * seq_len * double(d_model) * d_model;
                double t2_flops = 0;
                for (int first = 0; first < seq_len; first += kBlock) {
                    const int rows = std::min(kBlock, seq_len - first);
                    t2_flops += 2.0 * num_heads * rows * visibleKeys(first, rows) * head_dim;
                }
                const auto gflops = [](double flops, double ms) { return ms > 0 ? flops / ms * 1e-6 : 0.0; };
                qInfo(
                    "T=%d d=%d h=%d%s  %d thread(s): pass %.3f ms | projections %.3f (%.0f GFLOP/s) | copies %.3f | "
                    "scores %.3f (%.0f) | softmax %.3f | weights x V %.3f (%.0f) | streamed out %.3f | "
                    "output %.3f (%.0f) | rest %.3f",
                    seq_len, d_model, num_heads, causal ? " causal" : "", threads, pass, projections,
                    gflops(projection_flops, projections), copies, scores, gflops(t2_flops, scores), softmax, weighted,
                    gflops(t2_flops, weighted), streamed_out, output, gflops(projection_flops / 3, output),
                    pass - projections - copies - scores - softmax - weighted - streamed_out - output);
            }
        }
    }
    omp_set_num_threads(saved_threads);
}

namespace {

// kChainSteps steps of kChains independent chains, each step `step(chain)` on every chain, nothing
// else: the CPU time in ms. The first lane of each chain is checked finite, so that the compiler
// keeps the work.
constexpr int kChains = 12;  // more than latency x ports (4 x 2) so every port is busy
constexpr long kChainSteps = 50'000'000;

template <typename Packet, typename Step>
double chainsCpuMs(Packet (&chains)[kChains], Step step)
{
    const double start = threadCpuMs();
    for (long n = 0; n < kChainSteps; ++n) {
#pragma GCC unroll 12  // the chains stay in registers
        for (int c = 0; c < kChains; ++c)
            chains[c] = step(chains[c]);
    }
    const double ms = threadCpuMs() - start;
    for (int c = 0; c < kChains; ++c) {
        float first_lane = 0;
        std::memcpy(&first_lane, &chains[c], sizeof(float));
        if (!std::isfinite(first_lane))
            return -1;
    }
    return ms;
}

}  // namespace

// One core's float32 peak in GFLOP/s of its CPU time, with the packets this build uses (16 floats
// with AVX-512, 8 with AVX2).
void AttentionBench::fmaPeak()
{
    using namespace Eigen::internal;
    using Packet = packet_traits<float>::type;
    constexpr int kLanes = packet_traits<float>::size;
    Packet chains[kChains];
    for (int c = 0; c < kChains; ++c)
        chains[c] = pset1<Packet>(1.0f + 1e-3f * float(c));
    const Packet factor = pset1<Packet>(0.999999f);
    const Packet term = pset1<Packet>(1e-7f);
    const double ms = chainsCpuMs(chains, [&](Packet chain) { return pmadd(chain, factor, term); });
    QVERIFY(ms > 0);
    const double flops = 2.0 * kLanes * kChains * double(kChainSteps);
    qInfo("float32 multiply-add peak of one core: %.1f GFLOP/s of CPU time (%d-float packets)", flops / ms * 1e-6,
          kLanes);
}

// vdpbf16ps: 16 lanes, each adding two bfloat16 x bfloat16 products into a float32, measured as
// fmaPeak measures vfmadd231ps. A float32 product is exact this way only with x split into three
// bfloat16 parts (as the AMX tiles do, TileWeights.h), three times the products, so it pays only
// where the dot products run at more than 1.5x the FMA's multiply-adds per second.
void AttentionBench::bf16DotPeak()
{
#if defined(__AVX512BF16__)
    __m512 chains[kChains];
    for (int c = 0; c < kChains; ++c)
        chains[c] = _mm512_set1_ps(1e-3f * float(c));
    const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80);  // 1.0 in bfloat16
    const __m512bh b = (__m512bh)_mm512_set1_epi16(0x3380);  // 2^-24
    const double ms = chainsCpuMs(chains, [&](__m512 chain) { return _mm512_dpbf16_ps(chain, a, b); });
    QVERIFY(ms > 0);
    const double products = 32.0 * kChains * double(kChainSteps);  // 16 lanes x 2 products
    qInfo("bfloat16 dot-product peak of one core: %.1f GFLOP/s of CPU time (2 x products); a float32 product "
          "through three bfloat16 parts of x: %.1f",
          2 * products / ms * 1e-6, 2 * products / ms * 1e-6 / 3);
#else
    QSKIP("built without AVX512_BF16 (-march of a processor that has it)");
#endif
}

QTEST_GUILESS_MAIN(AttentionBench)
#include "attention_bench.moc"
