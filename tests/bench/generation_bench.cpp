// Speed of generation with the key/value cache on a GPT-2-small-shaped model (12 layers, 12 heads,
// width 768, vocab 50257; random weights, tests/support/RandomModel.h), greedy, no eos:
//   "generate gpt2 T=16 N=64": from a 16-token prompt, 64 new tokens (the prompt's pass, then 64
//   steps of: the last row's logits, the choice, one token through every layer against the cache,
//   its rows kept), and the final sequence's run assembled (TokenGeneration::run). The row's value
//   is the whole time; divide by 64 for the time per token. scripts/bench_generation_torch.py is
//   its PyTorch peer (its own key/value cache, every step's attention kept, same threads).
//   "generate gpt2 T=256 N=64", "T=768 N=64": the same from longer prompts, so that a per-step
//   cost growing with the sequence (copies of what was computed before) would show.
//   "... N=1": the prompt's pass and one token: (N=64 - N=1) / 63 is the cost of a step alone.
//
// Not a test: built with the tests, not registered with CTest. Run
// `build/tests/bench/generation_bench -csv -median 5`.

#include "core/base/MemoryReuse.h"
#include "core/base/SplitMix64.h"
#include "core/model/TokenGeneration.h"

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

class GenerationBench : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { keepFreedBlocksForReuse(); }  // as the program does (app/main.cpp)
    void generate_data();
    void generate();
};

void GenerationBench::generate_data()
{
    QTest::addColumn<int>("prompt_length");
    QTest::addColumn<int>("new_tokens");
    for (int prompt_length : {16, 256, 768})
        for (int new_tokens : {1, 64})
            QTest::addRow("generate gpt2 T=%d N=%d", prompt_length, new_tokens) << prompt_length << new_tokens;
}

void GenerationBench::generate()
{
    QFETCH(int, prompt_length);
    QFETCH(int, new_tokens);
    const TransformerModel& model = gpt2();
    const std::vector<int> prompt = randomIds(prompt_length, model.config().vocab_size, 11);
    GenerationRequest request;
    request.max_new_tokens = new_tokens;
    int length = 0;
    QBENCHMARK
    {
        auto generation = TokenGeneration::start(model, prompt, request);
        QVERIFY2(generation, qPrintable(generation.error()));
        QVERIFY((*generation)->generate());
        const ModelRun run = (*generation)->run();
        length = run.seqLen();
    }
    QCOMPARE(length, prompt_length + new_tokens);
}

QTEST_GUILESS_MAIN(GenerationBench)
#include "generation_bench.moc"
