// Loading a Hugging Face model folder: every spelling of the same checkpoint (prefixes, old
// LayerNorm names, buffers of any dtype, shards, F32 / F16 / BF16) gives bit for bit the same
// run, F32 weights are read in place from the mapped file, and the loader's refusals name the
// tensor or file at fault. The folders are fixtures of tests/fixtures/models/, copied and changed
// one thing at a time.
#include "core/model/TransformerModel.h"

#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

using namespace attn;
using namespace attn::testing;

namespace {

using TensorEdit = std::function<void(std::vector<StTensor>&)>;

const std::vector<int> kIds = {5, 17, 42, 17, 60, 3, 5};  // in every fixture's vocabulary

Result<ModelRun> runFolder(const QString& dir)
{
    auto model = TransformerModel::load(dir);
    if (!model)
        return Error{model.error()};
    return (*model)->forward(kIds, 1);
}

bool sameRun(const ModelRun& a, const ModelRun& b)
{
    if (a.numLayers() != b.numLayers() || a.last_hidden_state != b.last_hidden_state ||
        a.layer_trace.q != b.layer_trace.q)
        return false;
    for (int l = 0; l < a.numLayers(); ++l)
        for (int h = 0; h < a.attention.numHeads(); ++h)
            if (a.attention.head(l, h) != b.attention.head(l, h))
                return false;
    return true;
}

// Largest difference between two runs' last hidden states and attention weights, relative to
// the largest value of each.
double largestDifference(const ModelRun& a, const ModelRun& b)
{
    double worst =
        (a.last_hidden_state - b.last_hidden_state).cwiseAbs().maxCoeff() / a.last_hidden_state.cwiseAbs().maxCoeff();
    for (int l = 0; l < a.numLayers(); ++l)
        for (int h = 0; h < a.attention.numHeads(); ++h)
            worst = std::max(worst, double((a.attention.head(l, h) - b.attention.head(l, h)).cwiseAbs().maxCoeff()));
    return worst;
}

void renameAll(std::vector<StTensor>& tensors, const std::function<QString(const QString&)>& rename)
{
    for (StTensor& t : tensors)
        t.name = rename(t.name);
}

StTensor* findTensor(std::vector<StTensor>& tensors, const QString& name)
{
    for (StTensor& t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

}  // namespace

class TestModelFolder : public QObject {
    Q_OBJECT

private slots:
    void spellingsOfOneCheckpoint_data();
    void spellingsOfOneCheckpoint();
    void halfPrecisionDtypes();
    void f32WeightsAreReadInPlace();
    void distilBertSinusoidalPositions();
    void untiedLmHead();
    void refusals_data();
    void refusals();
    void nonFiniteInPlaceWeightIsNamed();
};

void TestModelFolder::spellingsOfOneCheckpoint_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<TensorEdit>("edit");
    QTest::addColumn<int>("shards");

    const auto noEdit = TensorEdit([](std::vector<StTensor>&) {});
    QTest::newRow("gpt2 without the transformer. prefix") << "gpt2-prefixed" << TensorEdit([](auto& t) {
        renameAll(t, [](const QString& n) { return QString(n).remove("transformer."); });
    }) << 1;
    QTest::newRow("gpt2 with the transformer. prefix")
        << "gpt2-tiny" << TensorEdit([](auto& t) { renameAll(t, [](const QString& n) { return "transformer." + n; }); })
        << 1;
    QTest::newRow("bert LayerNorm.weight/bias instead of gamma/beta") << "bert-tiny" << TensorEdit([](auto& t) {
        renameAll(t, [](const QString& n) {
            return QString(n)
                .replace("LayerNorm.gamma", "LayerNorm.weight")
                .replace("LayerNorm.beta", "LayerNorm.bias");
        });
    }) << 1;
    QTest::newRow("bert without prefix, pooler, NSP head and position_ids") << "bert-tiny" << TensorEdit([](auto& t) {
        std::erase_if(t, [](const StTensor& s) {
            return s.name.contains("pooler") || s.name.contains("seq_relationship") || s.name.contains("position_ids");
        });
        renameAll(t, [](const QString& n) { return QString(n).remove(QRegularExpression("^bert\\.")); });
    }) << 1;
    QTest::newRow("distilbert without the distilbert. prefix") << "distilbert-tiny" << TensorEdit([](auto& t) {
        renameAll(t, [](const QString& n) { return QString(n).remove("distilbert."); });
    }) << 1;
    // Buffers and unused tensors are skipped whatever their dtype.
    QTest::newRow("buffers and extra tensors of other dtypes") << "gpt2-prefixed" << TensorEdit([](auto& t) {
        findTensor(t, "transformer.h.0.attn.masked_bias")->dtype = "I32";  // F32 in the fixture
        t.push_back({"transformer.rotary_emb.inv_freq", "F64", {2}, f64Bytes({1.0, 0.5})});
        t.push_back({"score.weight", "U8", {3}, QByteArray(3, '\1')});
    }) << 1;
    QTest::newRow("llama without the model. prefix, inv_freq buffers in BF16")
        << "llama-tiny" << TensorEdit([](auto& t) {
               renameAll(t, [](const QString& n) { return QString(n).remove(QRegularExpression("^model\\.")); });
               t.push_back({"layers.0.self_attn.rotary_emb.inv_freq", "BF16", {4}, QByteArray(8, '\0')});
           })
        << 1;
    QTest::newRow("gpt_neox without the gpt_neox. prefix, buffers of other dtypes")
        << "pythia-tiny" << TensorEdit([](auto& t) {
               findTensor(t, "gpt_neox.layers.0.attention.masked_bias")->dtype = "I32";  // F32 in the fixture
               renameAll(t, [](const QString& n) { return QString(n).remove(QRegularExpression("^gpt_neox\\.")); });
           })
        << 1;
    QTest::newRow("mistral in 3 shards") << "mistral-tiny" << noEdit << 3;
    QTest::newRow("gpt2 in 2 shards") << "gpt2-prefixed" << noEdit << 2;
    QTest::newRow("bert in 3 shards") << "bert-tiny" << noEdit << 3;
}

void TestModelFolder::spellingsOfOneCheckpoint()
{
    QFETCH(QString, fixture);
    QFETCH(TensorEdit, edit);
    QFETCH(int, shards);
    auto reference = runFolder(modelFixture(fixture));
    QVERIFY2(reference, qPrintable(reference.error()));

    QTemporaryDir dir;
    QVERIFY(copyFolder(modelFixture(fixture), dir.path()));
    QVERIFY(editTensors(dir.path(), edit));
    if (shards > 1)
        QVERIFY(splitIntoShards(dir.path(), shards));
    auto run = runFolder(dir.path());
    QVERIFY2(run, qPrintable(run.error()));
    QVERIFY(sameRun(*run, *reference));
}

void TestModelFolder::halfPrecisionDtypes()
{
    // One set of numbers that F32, F16 and BF16 all hold exactly: the three files must give
    // the same run bit for bit (the conversions to float32 are exact). Where the processor has
    // tiles, the converted MLP weights (F16 and BF16 here) move into them and sum in another
    // order than the F32 file's, read in place: those two differ by float32 rounding only.
    std::vector<ModelRun> runs;
    for (const QString dtype : {"F32", "F16", "BF16"}) {
        QTemporaryDir dir;
        QVERIFY(copyFolder(modelFixture("gpt2-prefixed"), dir.path()));
        QVERIFY(editTensors(dir.path(), [&](std::vector<StTensor>& t) {
            roundToHalfPrecision(t);
            if (dtype != u"F32")
                storeAs(t, dtype);
        }));
        auto run = runFolder(dir.path());
        QVERIFY2(run, qPrintable(dtype + ": " + run.error()));
        runs.push_back(std::move(run).value());
    }
    QVERIFY(sameRun(runs[1], runs[2]));
    if (!TileWeights::available()) {
        QVERIFY(sameRun(runs[0], runs[1]));
    } else {
        const double difference = largestDifference(runs[0], runs[1]);
        qInfo("F32 in place against the tiles: largest relative difference %.3g", difference);
        // Two whole runs, each within the contract's 2e-5 of float64 (relative to the largest
        // value): within twice that of each other.
        QVERIFY(difference <= 2 * kContractTolerance);
    }
}

void TestModelFolder::f32WeightsAreReadInPlace()
{
    auto f32 = TransformerModel::load(modelFixture("gpt2-prefixed"));  // F32
    QVERIFY2(f32, qPrintable(f32.error()));
    const ModelWeights& w = (*f32)->weights();
    QVERIFY(w.word_embeddings.isInPlace());
    QVERIFY(w.layers[0].mlp_in.isInPlace());  // Conv1D (in, out): the math layout already
    QVERIFY(w.layers[1].mlp_out.isInPlace());

    auto bert = TransformerModel::load(modelFixture("distilbert-tiny"));  // F32, nn.Linear (out, in)
    QVERIFY2(bert, qPrintable(bert.error()));
    QVERIFY(bert.value()->weights().word_embeddings.isInPlace());
    QVERIFY(!bert.value()->weights().layers[0].mlp_in.isInPlace());  // transposed into memory of its own

    auto f16 = TransformerModel::load(modelFixture("gpt2-tiny"));  // F16: converted
    QVERIFY2(f16, qPrintable(f16.error()));
    QVERIFY(!f16.value()->weights().layers[0].mlp_in.isInPlace());
}

void TestModelFolder::distilBertSinusoidalPositions()
{
    QTemporaryDir dir;
    QVERIFY(copyFolder(modelFixture("distilbert-tiny"), dir.path()));
    QVERIFY(editTensors(dir.path(), [](auto& t) {
        std::erase_if(t, [](const StTensor& s) { return s.name.contains("position_embeddings"); });
    }));
    auto missing = TransformerModel::load(dir.path());
    QVERIFY(!missing);
    QVERIFY2(missing.error().contains("missing tensor 'embeddings.position_embeddings.weight'"),
             qPrintable(missing.error()));

    // With sinusoidal_pos_embds the table is create_sinusoidal_embeddings': row p, column 2i
    // sin(p / 10000^(2i/dim)), column 2i+1 cos(...).
    QVERIFY(editConfig(dir.path(), [](QJsonObject& c) { c["sinusoidal_pos_embds"] = true; }));
    auto model = TransformerModel::load(dir.path());
    QVERIFY2(model, qPrintable(model.error()));
    const auto table = (*model)->weights().position_embeddings.view();  // (64, 48)
    QCOMPARE(table.rows(), 64);
    QCOMPARE(table(0, 0), 0.0f);
    QCOMPARE(table(0, 1), 1.0f);
    QCOMPARE(table(3, 4), float(std::sin(3.0 / std::pow(10000.0, 4.0 / 48))));
    QCOMPARE(table(3, 5), float(std::cos(3.0 / std::pow(10000.0, 4.0 / 48))));
    QVERIFY((*model)->forward(kIds));

    // The table's size comes from config.json alone: an absurd one is refused, not allocated.
    QVERIFY(editConfig(dir.path(), [](QJsonObject& c) { c["max_position_embeddings"] = 1 << 24; }));
    auto absurd = TransformerModel::load(dir.path());
    QVERIFY(!absurd);
    QVERIFY2(absurd.error().contains("is too large"), qPrintable(absurd.error()));
}

void TestModelFolder::untiedLmHead()
{
    // gpt2-prefixed stores lm_head.weight (equal to wte). Untied and changed, it is the head.
    QTemporaryDir dir;
    QVERIFY(copyFolder(modelFixture("gpt2-prefixed"), dir.path()));
    QVERIFY(editConfig(dir.path(), [](QJsonObject& c) { c["tie_word_embeddings"] = false; }));
    QVERIFY(editTensors(dir.path(), [](auto& t) {
        StTensor* head = findTensor(t, "lm_head.weight");
        float* values = reinterpret_cast<float*>(head->data.data());
        for (qsizetype i = 0; i < head->data.size() / 4; ++i)
            values[i] = -values[i];
    }));
    auto tied = TransformerModel::load(modelFixture("gpt2-prefixed"));
    auto untied = TransformerModel::load(dir.path());
    QVERIFY2(untied, qPrintable(untied.error()));
    QCOMPARE((*tied)->weights().decoder().name(), QStringLiteral("transformer.wte.weight"));
    QCOMPARE((*untied)->weights().decoder().name(), QStringLiteral("lm_head.weight"));
    auto run = (*untied)->forward(kIds);
    auto top = (*untied)->predict(*run, {0}, 96);
    auto tied_top = (*tied)->predict(*run, {0}, 96);
    // Negated logits: the untied head's best is the tied head's worst.
    QCOMPARE(top->front().ids.front(), tied_top->front().ids.back());
    QCOMPARE(top->front().logits.front(), -tied_top->front().logits.back());
}

void TestModelFolder::refusals_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<TensorEdit>("edit");
    QTest::addColumn<QString>("message");

    QTest::newRow("F64 weight") << "gpt2-prefixed" << TensorEdit([](auto& t) {
        StTensor* w = findTensor(t, "transformer.ln_f.bias");
        const float* values = reinterpret_cast<const float*>(w->data.constData());
        w->data = f64Bytes(std::vector<double>(values, values + w->data.size() / 4));
        w->dtype = "F64";
    }) << "tensor 'transformer.ln_f.bias' has dtype F64; weights must be F32, F16 or BF16";
    QTest::newRow("integer weight") << "gpt2-prefixed" << TensorEdit([](auto& t) {
        findTensor(t, "transformer.h.1.ln_2.weight")->dtype = "I32";
    }) << "tensor 'transformer.h.1.ln_2.weight' has dtype I32";
    QTest::newRow("both spellings of one weight") << "gpt2-prefixed" << TensorEdit([](auto& t) {
        StTensor copy = *findTensor(t, "transformer.wpe.weight");
        copy.name = "wpe.weight";
        t.push_back(copy);
    }) << "are both the weight 'wpe.weight'";
    QTest::newRow("NaN in a converted weight") << "gpt2-tiny" << TensorEdit([](auto& t) {
        StTensor* w = findTensor(t, "h.1.attn.c_attn.weight");  // F16
        w->data[2] = char(0x00);
        w->data[3] = char(0x7E);  // 0x7E00: NaN
    }) << "tensor 'h.1.attn.c_attn.weight' contains NaN or infinite values";
}

void TestModelFolder::refusals()
{
    QFETCH(QString, fixture);
    QFETCH(TensorEdit, edit);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(copyFolder(modelFixture(fixture), dir.path()));
    QVERIFY(editTensors(dir.path(), edit));
    auto model = TransformerModel::load(dir.path());
    QVERIFY(!model);
    QVERIFY2(model.error().contains(message), qPrintable(model.error()));
}

void TestModelFolder::nonFiniteInPlaceWeightIsNamed()
{
    // An F32 weight read in place is checked where the forward pass first reads it.
    QTemporaryDir dir;
    QVERIFY(copyFolder(modelFixture("gpt2-prefixed"), dir.path()));
    QVERIFY(editTensors(dir.path(), [](auto& t) {
        float* values = reinterpret_cast<float*>(findTensor(t, "transformer.h.1.mlp.c_proj.weight")->data.data());
        values[7] = std::numeric_limits<float>::infinity();
    }));
    auto model = TransformerModel::load(dir.path());
    QVERIFY2(model, qPrintable(model.error()));
    auto run = (*model)->forward(kIds);
    QVERIFY(!run);
    QVERIFY2(run.error().contains("tensor 'transformer.h.1.mlp.c_proj.weight' contains NaN or infinite values"),
             qPrintable(run.error()));
}

REGISTER_TEST_SUITE(TestModelFolder, QCoreApplication)
#include "test_model_folder.moc"
