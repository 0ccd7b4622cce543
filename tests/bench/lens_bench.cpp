// Speed of what heads do on a GPT-2-small-shaped model (12 layers, 12 heads, width 768, vocab
// 50257; random weights, tests/support/RandomModel.h), from a forward pass already run:
//   lens:        "lens gpt2 T=64 top5" ...: the logit lens of every layer and position (final norm,
//                unembedding, softmax, top 5), LogitLens::compute; scripts/bench_lens_torch.py is its
//                PyTorch peer (ln_f + unembedding per layer + softmax + torch.topk, same threads).
//   attribution: "attribution gpt2 T=256": direct logit attribution at the last position,
//                LogitAttribution::compute (beyond the forward pass, which is not timed).
//   metric:      "metric gpt2 T=256": the logit difference at the last position alone (one row of
//                the head), the part of the attribution that does not depend on the layers.
//   memory:      printed, not timed: the bytes the lens holds besides the run at T = 1024, and the
//                residual stream the pass keeps for it.
//
// Not a test: built with the tests, not registered with CTest. Run
// `build/tests/bench/lens_bench -csv -median 5`.

#include "core/base/MemoryReuse.h"
#include "core/base/SplitMix64.h"
#include "core/lens/LogitAttribution.h"
#include "core/lens/LogitLens.h"

#include "tests/support/RandomModel.h"

#include <QtTest>

#include <map>

using namespace attn;
using namespace attn::testing;

namespace {

TransformerModel& gpt2()
{
    static std::unique_ptr<TransformerModel> model = randomModel(gpt2SmallConfig(), 7);
    return *model;
}

std::vector<int> randomIds(int count, int vocab, std::uint64_t seed)
{
    SplitMix64 rng(seed);
    std::vector<int> ids;
    for (int i = 0; i < count; ++i)
        ids.push_back(int(rng.next() % std::uint64_t(vocab)));
    return ids;
}

const ModelRun& runOf(int seq_len)
{
    static std::map<int, ModelRun> runs;
    auto found = runs.find(seq_len);
    if (found == runs.end()) {
        auto run = gpt2().forward(randomIds(seq_len, gpt2().config().vocab_size, std::uint64_t(seq_len)), 0, true);
        found = runs.emplace(seq_len, std::move(run).value()).first;
    }
    return found->second;
}

}  // namespace

class LensBench : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { keepFreedBlocksForReuse(); }  // as the program does (app/main.cpp)
    void lens_data();
    void lens();
    void attribution();
    void metric();
    void memory();
};

void LensBench::lens_data()
{
    QTest::addColumn<int>("seq_len");
    for (int seq_len : {16, 64, 256})
        QTest::addRow("lens gpt2 T=%d top5", seq_len) << seq_len;
}

void LensBench::lens()
{
    QFETCH(int, seq_len);
    const TransformerModel& m = gpt2();
    const ModelRun& run = runOf(seq_len);
    QVERIFY(LogitLens::compute(m.config(), m.weights(), run, LensRequest{}));  // warm-up
    QBENCHMARK
    {
        auto lens = LogitLens::compute(m.config(), m.weights(), run, LensRequest{});
        Q_UNUSED(lens);
    }
}

void LensBench::attribution()
{
    const TransformerModel& m = gpt2();
    const ModelRun& run = runOf(256);
    const MetricTokens tokens{464, 262};
    QVERIFY(LogitAttribution::compute(m.config(), m.weights(), run, 255, tokens));
    QBENCHMARK
    {
        auto parts = LogitAttribution::compute(m.config(), m.weights(), run, 255, tokens);
        Q_UNUSED(parts);
    }
}

void LensBench::metric()
{
    const TransformerModel& m = gpt2();
    const ModelRun& run = runOf(256);
    QBENCHMARK
    {
        auto value = LogitMetric::value(m.config(), m.weights(), run, 255, MetricTokens{464, 262});
        Q_UNUSED(value);
    }
}

void LensBench::memory()
{
    const ModelConfig& config = gpt2().config();
    const int seq_len = 1024;
    const double lens = double(LogitLens::extraBytes(config, seq_len, 5)) / 1e6;
    const double residuals = double(config.num_layers) * seq_len * config.hidden_size * 4 / 1e6;
    qInfo(
        "GPT-2 small at T = %d: the lens holds %.1f MB besides the run; the pass keeps a residual stream "
        "of %.1f MB for it (together %.1f MB)",
        seq_len, lens, residuals, lens + residuals);
}

QTEST_GUILESS_MAIN(LensBench)
#include "lens_bench.moc"
