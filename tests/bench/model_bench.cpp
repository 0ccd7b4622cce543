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
//   keystroke: "keystroke gpt2 T=32": a character typed at the end of a 31-token sentence, every
//             layer's attention recomputed through the cache (TransformerModel::forward with a
//             ForwardCache: one new token per layer); "... no cache" is the whole pass it replaces.
//             "keystroke smollm2 T=32" the same on the SmolLM2-135M shape: rotated keys and the 3
//             key/value heads cached.
//   open:     "open gpt2-small": TransformerModel::load of a GPT-2-small F32 folder (498 MB, written
//             to a temporary folder first, so read from the page cache) and its first result, a
//             6-token pass; "open $MODEL_BENCH_FOLDER" the same for that folder, when set (e.g.
//             one written by scripts/make_random_model.py).
//   linear:   the products that are most of that work, alone (out = x W + b, the threads sharing
//             out the columns as in the forward pass), so their GFLOP/s can be read off:
//             2 * T * inner * cols / time.
//   tiles:    "tiles T=256 896x4864" ...: the MLP products of Qwen2.5-0.5B and SmolLM2-135M with
//             bfloat16 weights on the AMX tiles (TileWeights; skipped without them), and the same
//             products in float32 ("float32 T=..."), each weight matrix from memory as in a pass.

#include "core/base/MemoryReuse.h"
#include "core/base/SplitMix64.h"
#include "core/ops/Linear.h"
#include "core/ops/TileWeights.h"

#include "tests/support/RandomModel.h"

#include <QtTest>

#include <QTemporaryDir>

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
    void keystroke_data();
    void keystroke();
    void open_data();
    void open();
    void linear_data();
    void linear();
    void tiles_data();
    void tiles();
};

void ModelBench::forward_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("seq_len");
    for (int seq_len : {16, 64, 256, 1024})
        QTest::addRow("gpt2 T=%d", seq_len) << QStringLiteral("gpt2") << seq_len;
    for (int seq_len : {16, 64, 256, 512})
        QTest::addRow("bert T=%d", seq_len) << QStringLiteral("bert") << seq_len;
    for (const QString& kind : {QStringLiteral("smollm2"), QStringLiteral("qwen2")})
        for (int seq_len : {16, 64, 256})
            QTest::addRow("%s T=%d", qPrintable(kind), seq_len) << kind << seq_len;
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

void ModelBench::keystroke_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("cached");
    for (const char* kind : {"gpt2", "smollm2"}) {
        QTest::addRow("keystroke %s T=32", kind) << QString::fromLatin1(kind) << true;
        QTest::addRow("keystroke %s T=32 no cache", kind) << QString::fromLatin1(kind) << false;
    }
}

void ModelBench::keystroke()
{
    QFETCH(QString, kind);
    QFETCH(bool, cached);
    const TransformerModel& m = model(kind);
    std::vector<int> ids = randomIds(32, m.config().vocab_size, 32);
    const int layer = 5;  // the selected layer's walkthrough rows are kept, as in the window
    ForwardCache cache;
    QVERIFY(m.forward({ids.begin(), ids.end() - 1}, layer, cache));  // the sentence before the keystroke
    int keystroke = 0;
    QBENCHMARK
    {
        // Another last token each time: the 31 before it are the cache's, the last one is new.
        ids.back() = 1000 + keystroke++ % 2;
        if (cached) {
            auto run = m.forward(ids, layer, cache);
            QVERIFY(run);
        } else {
            auto run = m.forward(ids, layer);
            QVERIFY(run);
        }
    }
}

void ModelBench::open_data()
{
    QTest::addColumn<QString>("folder");
    QTest::newRow("open gpt2-small") << QString();
    const QString folder = qEnvironmentVariable("MODEL_BENCH_FOLDER");
    if (!folder.isEmpty())
        QTest::addRow("open %s", qPrintable(folder)) << folder;
}

void ModelBench::open()
{
    QFETCH(QString, folder);
    QTemporaryDir written;
    if (folder.isEmpty()) {
        QVERIFY(written.isValid());
        folder = written.path();
        QVERIFY2(writeGpt2Folder(folder, gpt2SmallConfig(), 11), "could not write the checkpoint");
    }
    const std::vector<int> ids = {464, 3797, 3332, 319, 262, 14477};  // "The cat sat on the mat"
    QBENCHMARK
    {
        auto model = TransformerModel::load(folder);
        QVERIFY2(model, qPrintable(model.error()));
        auto run = (*model)->forward(ids, 0);
        QVERIFY2(run, qPrintable(run.error()));
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
        attn::linear(x, w, bias.data(), out, false);  // a model checks each weight once, not per pass
    }
}

void ModelBench::tiles_data()
{
    QTest::addColumn<bool>("on_tiles");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("inner");
    QTest::addColumn<int>("cols");
    // Qwen2.5-0.5B's MLP (896 -> 4864 twice, 4864 -> 896) and SmolLM2-135M's (576 -> 1536, 1536 -> 576),
    // with bfloat16 weights: on the tiles and in float32.
    for (bool on_tiles : {true, false})
        for (int rows : {16, 64, 256})
            for (auto [inner, cols] :
                 {std::pair{896, 4864}, std::pair{4864, 896}, std::pair{576, 1536}, std::pair{1536, 576}})
                QTest::addRow("%s T=%d %dx%d", on_tiles ? "tiles" : "float32", rows, inner, cols)
                    << on_tiles << rows << inner << cols;
}

void ModelBench::tiles()
{
    QFETCH(bool, on_tiles);
    QFETCH(int, rows);
    QFETCH(int, inner);
    QFETCH(int, cols);
    if (on_tiles && !TileWeights::available())
        QSKIP("this processor has no AMX tiles");
    SplitMix64 rng(3);
    Matrix x(rows, inner), out(rows, cols);
    for (float& v : x.reshaped())
        v = float(rng.uniform(-1, 1));
    // As in a pass, the weights come from memory: copies enough to pass 256 MB in bfloat16.
    const int copies = int(std::max<std::int64_t>(2, (std::int64_t(256) << 20) / (std::int64_t(inner) * cols * 2)));
    std::vector<WeightMatrix> weights;
    for (int c = 0; c < copies; ++c) {
        Matrix w(inner, cols);
        for (float& v : w.reshaped())
            v = float(rng.uniform(-0.03, 0.03));
        w = w.unaryExpr([](float v) { return float(Eigen::bfloat16(v)); });
        weights.push_back(WeightMatrix::owned(QStringLiteral("w"), std::move(w)));
        if (on_tiles)
            QVERIFY(weights.back().moveIntoTiles());
    }
    int next = 0;
    QBENCHMARK
    {
        multiply(x, weights[size_t(next)], {}, out);
        next = (next + 1) % copies;
    }
}

QTEST_GUILESS_MAIN(ModelBench)
#include "model_bench.moc"
