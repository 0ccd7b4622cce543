// Speed of the ablation scan (core/lens/AblationScan) on the GPT-2 small shape (12 layers x 12
// heads, width 768, vocab 50257; random weights and ids): "ablation scan gpt2 T=16 zero" and
// "... mean", the 144 ablated passes, each from its own layer on (the plain run's residual
// entering it), and the metric (a logit difference at the last position) of each.
//
// Not a test: tests/CMakeLists.txt builds it but does not register it with CTest. Run
// `build/tests/bench/ablation_bench -csv -median 3`; scripts/bench_ablation_torch.py is its
// PyTorch peer, with rows of the same names.

#include "core/base/MemoryReuse.h"
#include "core/base/SplitMix64.h"
#include "core/lens/AblationScan.h"

#include "tests/support/RandomModel.h"

#include <QtTest>

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

}  // namespace

class AblationBench : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { keepFreedBlocksForReuse(); }  // as the program does (app/main.cpp)
    void scan_data();
    void scan();
};

void AblationBench::scan_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("ablation scan gpt2 T=16 zero") << int(HeadAblation::Zero);
    QTest::newRow("ablation scan gpt2 T=16 mean") << int(HeadAblation::Mean);
}

void AblationBench::scan()
{
    QFETCH(int, mode);
    const TransformerModel& m = gpt2();
    static const ModelRun plain = m.forward(randomIds(16, m.config().vocab_size, 16), 0, true).value();
    const MetricTokens tokens{464, 262};
    QVERIFY(AblationScan::run(m.config(), m.weights(), plain, 15, tokens, HeadAblation(mode)));  // warm-up
    QBENCHMARK
    {
        auto scan = AblationScan::run(m.config(), m.weights(), plain, 15, tokens, HeadAblation(mode));
        Q_UNUSED(scan);
    }
}

QTEST_GUILESS_MAIN(AblationBench)
#include "ablation_bench.moc"
