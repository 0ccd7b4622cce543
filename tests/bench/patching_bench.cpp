// Speed of activation patching on a GPT-2-small-shaped model (12 layers, 12 heads, width 768, vocab
// 50257; random weights, tests/support/RandomModel.h):
//   "patching resid gpt2 T=16": the residual patching scan, ActivationPatching::run at the resid
//   site: the clean pass, the corrupted one recording the site, then 12 x 16 patched passes, each
//   from its own layer on the corrupted run's cached residual (the corrupted run itself, which the
//   command line has already made, is not timed). Clean and corrupted ids differ at every position,
//   so no patch is skipped. scripts/bench_patching_torch.py is its PyTorch peer (same computation:
//   cached residuals, each patched pass recomputed from its layer, same threads).
//   memory: printed, not timed: what the scan plans to hold at T = 16 and T = 1024.
//
// Not a test: built with the tests, not registered with CTest. Run
// `build/tests/bench/patching_bench -csv -median 5`.

#include "core/base/MemoryReuse.h"
#include "core/base/SplitMix64.h"
#include "core/lens/ActivationPatching.h"

#include "tests/support/RandomModel.h"

#include <QtTest>

#include <omp.h>

using namespace attn;
using namespace attn::testing;

namespace {

TransformerModel& gpt2()
{
    static std::unique_ptr<TransformerModel> model = randomModel(gpt2SmallConfig(), 7);
    return *model;
}

// Ids of the two inputs: every position differs.
std::vector<int> randomIds(int count, int vocab, std::uint64_t seed)
{
    SplitMix64 rng(seed);
    std::vector<int> ids;
    for (int i = 0; i < count; ++i)
        ids.push_back(int(rng.next() % std::uint64_t(vocab)));
    return ids;
}

}  // namespace

class PatchingBench : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { keepFreedBlocksForReuse(); }  // as the program does (app/main.cpp)
    void residScan_data();
    void residScan();
    void memory();
};

void PatchingBench::residScan_data()
{
    QTest::addColumn<int>("seq_len");
    QTest::addRow("patching resid gpt2 T=16") << 16;
}

void PatchingBench::residScan()
{
    QFETCH(int, seq_len);
    const TransformerModel& m = gpt2();
    const int vocab = m.config().vocab_size;
    auto corrupted = m.forward(randomIds(seq_len, vocab, 16), 0, true);
    QVERIFY(corrupted);
    PatchingRequest request;
    request.clean_ids = randomIds(seq_len, vocab, 61);
    request.site = InterventionSite::Residual;
    request.position = seq_len - 1;
    request.tokens = MetricTokens{464, 262};
    auto warm = ActivationPatching::run(m.config(), m.weights(), *corrupted, request);
    QVERIFY2(warm, qPrintable(warm.error()));
    QBENCHMARK
    {
        auto result = ActivationPatching::run(m.config(), m.weights(), *corrupted, request);
        Q_UNUSED(result);
    }
}

void PatchingBench::memory()
{
    const ModelConfig& config = gpt2().config();
    for (int seq_len : {16, 1024})
        qInfo("patching resid gpt2 T=%d: %.1f MB planned on %d threads", seq_len,
              double(ActivationPatching::plannedBytes(config, seq_len, InterventionSite::Residual,
                                                      omp_get_max_threads())) /
                  1e6,
              omp_get_max_threads());
}

QTEST_GUILESS_MAIN(PatchingBench)
#include "patching_bench.moc"
