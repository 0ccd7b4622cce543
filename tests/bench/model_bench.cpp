// Speed of one whole-model forward pass, from token ids to the last hidden state with every
// layer's attention maps kept (what --model computes before writing its JSON).
//
// Not a test: tests/CMakeLists.txt builds it but does not register it with CTest. Run
// `build/tests/bench/model_bench -csv`; scripts/bench_models_torch.py is its PyTorch peer, with
// rows of the same names, on the reference modules of tests/fixtures/models/reference_models.py.
//
//   forward:  "gpt2 T=16" ... "gpt2 T=1024" (GPT-2 small: 12 layers, 12 heads, width 768, vocab
//             50257), "bert T=16" ... "bert T=512" (BERT-base), "smollm2 T=16/64/256" (SmolLM2-135M:
//             30 layers, 9 heads / 3 key/value heads, width 576, intermediate 1536, vocab 49152) and
//             "qwen2 T=16/64/256" (Qwen2.5-0.5B: 24 layers, 14 / 2 heads, width 896, intermediate
//             4864, vocab 151936, q/k/v biases), random weights and ids.
//   open:     TransformerModel::load of the folder in $MODEL_BENCH_FOLDER (skipped without it), e.g.
//             one written by scripts/make_random_model.py: reading config.json and the header,
//             mapping the file, converting what is not used in place.
//   linear:   the products that are most of that work, alone (out = x W + b, the threads sharing
//             out the columns as in the forward pass), so their GFLOP/s can be read off:
//             2 * T * inner * cols / time.

#include "core/base/MemoryReuse.h"
#include "core/base/SplitMix64.h"
#include "core/ops/Linear.h"

#include "tests/support/RandomModel.h"

#include <QtTest>

#include <map>

using namespace attn;
using namespace attn::testing;

namespace {

TransformerModel& model(const QString& kind)
{
    static std::map<QString, std::unique_ptr<TransformerModel>> models;
    auto& slot = models[kind];
    if (!slot)
        slot = randomModel(kind == u"gpt2"      ? gpt2SmallConfig()
                           : kind == u"bert"    ? bertBaseConfig()
                           : kind == u"smollm2" ? smollm2Config()
                                                : qwen2HalfBConfig(),
                           7);
    return *slot;
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

class ModelBench : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { keepFreedBlocksForReuse(); }  // as the program does (app/main.cpp)
    void forward_data();
    void forward();
    void open();
    void linear_data();
    void linear();
};

void ModelBench::forward_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("seq_len");
    for (int seq_len : {16, 64, 256, 1024})
        QTest::addRow("gpt2 T=%d", seq_len) << QStringLiteral("gpt2") << seq_len;
    for (int seq_len : {16, 64, 256, 512})
        QTest::addRow("bert T=%d", seq_len) << QStringLiteral("bert") << seq_len;
    for (const char* kind : {"smollm2", "qwen2"})
        for (int seq_len : {16, 64, 256})
            QTest::addRow("%s T=%d", kind, seq_len) << QString::fromLatin1(kind) << seq_len;
}

void ModelBench::forward()
{
    QFETCH(QString, kind);
    QFETCH(int, seq_len);
    const TransformerModel& m = model(kind);
    const std::vector<int> ids = randomIds(seq_len, m.config().vocab_size, std::uint64_t(seq_len));
    QVERIFY(m.forward(ids));  // warm-up, and the pass must succeed
    QBENCHMARK
    {
        auto run = m.forward(ids);
        Q_UNUSED(run);
    }
}

void ModelBench::open()
{
    const QString folder = qEnvironmentVariable("MODEL_BENCH_FOLDER");
    if (folder.isEmpty())
        QSKIP("set MODEL_BENCH_FOLDER to a model folder");
    QBENCHMARK
    {
        auto model = TransformerModel::load(folder);
        QVERIFY2(model, qPrintable(model.error()));
    }
}

void ModelBench::linear_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("inner");
    QTest::addColumn<int>("cols");
    // GPT-2 small / BERT-base: Q|K|V (768 -> 2304), MLP in (768 -> 3072), MLP out (3072 -> 768).
    for (int rows : {16, 64, 256, 1024})
        for (auto [inner, cols] : {std::pair{768, 2304}, std::pair{768, 3072}, std::pair{3072, 768}})
            QTest::addRow("linear T=%d %dx%d", rows, inner, cols) << rows << inner << cols;
}

void ModelBench::linear()
{
    QFETCH(int, rows);
    QFETCH(int, inner);
    QFETCH(int, cols);
    SplitMix64 rng(3);
    Matrix x(rows, inner), w(inner, cols), out(rows, cols);
    for (float& v : x.reshaped())
        v = float(rng.uniform(-1, 1));
    for (float& v : w.reshaped())
        v = float(rng.uniform(-0.03, 0.03));
    RowVector bias = RowVector::Zero(cols);
    QBENCHMARK
    {
        attn::linear(x, w, bias.data(), out);
    }
}

QTEST_GUILESS_MAIN(ModelBench)
#include "model_bench.moc"
