// Generation with the key/value cache (core/model/TokenGeneration) against the float64 reference:
// tests/fixtures/models/*/generation.json (reference_models.greedy_continuation, full passes
// without a cache). On every causal family: the greedy ids and the eos stop, and the attention of
// the whole final sequence, computed one token at a time, within the contract's 2e-5 of the
// reference and of one pass over the final ids. Then sampling (seeds, top-k, top-p), the sampler's
// warpers on made-up logits, cancelling, branching and the refusals.
#include "core/model/EndOfSequence.h"
#include "core/model/TokenGeneration.h"
#include "core/model/TokenSampler.h"
#include "core/model/TransformerModel.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <set>

using namespace attn;
using namespace attn::testing;

namespace {

const char* const kCausalFolders[] = {"gpt2-tiny",    "gpt2-prefixed", "llama-tiny",  "qwen2-tiny",
                                      "mistral-tiny", "llama-biased",  "pythia-tiny", "neox-sequential"};

std::vector<int> intList(const QJsonArray& array)
{
    std::vector<int> values;
    for (const QJsonValue& v : array)
        values.push_back(v.toInt());
    return values;
}

std::unique_ptr<TransformerModel> loadFolder(const QString& folder)
{
    auto model = TransformerModel::load(folder);
    if (!model)
        qFatal("%s: %s", qPrintable(folder), qPrintable(model.error()));
    return std::move(model).value();
}

// The largest |a - b| over every layer, head and entry of two runs' maps of the same length.
double mapsDifference(const AttentionMaps& a, const AttentionMaps& b)
{
    double worst = 0.0;
    for (int l = 0; l < a.numLayers(); ++l)
        for (int h = 0; h < a.numHeads(); ++h)
            worst = std::max(worst, double((a.head(l, h) - b.head(l, h)).cwiseAbs().maxCoeff()));
    return worst;
}

double relativeDifference(const Matrix& a, const Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numeric_limits<double>::infinity();
    if (a.size() == 0)
        return 0.0;
    return double((a - b).cwiseAbs().maxCoeff()) / std::max(1.0f, b.cwiseAbs().maxCoeff());
}

// Greedy generation of `folder`'s generation.json request.
std::unique_ptr<TokenGeneration> greedy(const TransformerModel& model, const QJsonObject& expected,
                                        const QString& folder, bool keep_residual_stream = false, int layer = 0)
{
    GenerationRequest request;
    request.max_new_tokens = expected["max_new_tokens"].toInt();
    auto eos = EndOfSequence::read(folder);
    if (!eos)
        qFatal("%s", qPrintable(eos.error()));
    request.eos_ids = *eos;
    request.keep_residual_stream = keep_residual_stream;
    request.selected_layer = layer;
    auto generation = TokenGeneration::start(model, intList(expected["prompt_ids"].toArray()), request);
    if (!generation)
        qFatal("%s", qPrintable(generation.error()));
    if (Status s = (*generation)->generate(); !s)
        qFatal("%s", qPrintable(s.error()));
    return std::move(generation).value();
}

std::vector<int> sampledIds(const TransformerModel& model, const std::vector<int>& prompt, SamplingSettings sampling,
                            int count)
{
    GenerationRequest request;
    request.max_new_tokens = count;
    request.sampling = sampling;
    auto generation = TokenGeneration::start(model, prompt, request);
    if (!generation)
        qFatal("%s", qPrintable(generation.error()));
    if (Status s = (*generation)->generate(); !s)
        qFatal("%s", qPrintable(s.error()));
    const std::vector<int>& ids = (*generation)->tokenIds();
    return {ids.begin() + (*generation)->promptLength(), ids.end()};
}

void addFolders()
{
    QTest::addColumn<QString>("folder");
    for (const char* name : kCausalFolders)
        QTest::newRow(name) << fixturesPath("models/") + QLatin1String(name);
}

}  // namespace

class TestGeneration : public QObject {
    Q_OBJECT

private slots:
    void greedyAgreesWithReference_data() { addFolders(); }
    void greedyAgreesWithReference();
    void finalRunEqualsOnePass_data() { addFolders(); }
    void finalRunEqualsOnePass();
    void endOfSequenceIds();
    void sameSeedSameIds();
    void topKOneIsGreedy();
    void samplerWarpers();
    void stepsCallbackAndCancel();
    void branchFromStep();
    void refusals();
};

void TestGeneration::greedyAgreesWithReference()
{
    QFETCH(QString, folder);
    const QJsonObject expected = readJsonObject(folder + QStringLiteral("/generation.json"));
    QVERIFY2(!expected.isEmpty(), qPrintable(folder + "/generation.json is missing"));
    const auto model = loadFolder(folder);
    const auto generation = greedy(*model, expected, folder);

    // The prompts were chosen with a top-2 margin of at least 0.01 at every step (the fixture's
    // min_margin), far above float32's error on these logits: the ids must be the same.
    QCOMPARE(generation->tokenIds(), intList(expected["token_ids"].toArray()));
    QCOMPARE(generation->generated(), int(expected["generated_ids"].toArray().size()));
    QCOMPARE(generation->stoppedAtEos(), expected["stopped_at_eos"].toBool());
    QCOMPARE(int(generation->steps().size()), generation->generated());
    for (const GenerationStep& step : generation->steps()) {
        QCOMPARE(step.token_id, step.top_ids.front());  // greedy: the best of the alternatives
        QCOMPARE(int(step.top_ids.size()), 5);
        QVERIFY(!step.forced);
    }

    // The whole final sequence's attention, made step by step, within the contract's 2e-5 of
    // one float64 pass over the final ids.
    const ModelRun run = generation->run();
    const QJsonArray attention = expected["attention"].toArray();
    QCOMPARE(run.seqLen(), int(expected["token_ids"].toArray().size()));
    double worst = 0.0;
    for (int l = 0; l < run.numLayers(); ++l)
        for (int h = 0; h < run.attention.numHeads(); ++h) {
            const QJsonArray rows = attention[l].toArray()[h].toArray();
            for (int i = 0; i < run.seqLen(); ++i) {
                const QJsonArray row = rows[i].toArray();
                for (int j = 0; j < run.seqLen(); ++j)
                    worst = std::max(worst, std::abs(double(run.attention.at(l, h, i, j)) - row[j].toDouble()));
            }
        }
    QVERIFY2(worst <= kContractTolerance, qPrintable(QStringLiteral("attention differs by %1").arg(worst)));
}

void TestGeneration::finalRunEqualsOnePass()
{
    QFETCH(QString, folder);
    const QJsonObject expected = readJsonObject(folder + QStringLiteral("/generation.json"));
    const auto model = loadFolder(folder);
    const int layer = model->config().num_layers - 1;
    const auto generation = greedy(*model, expected, folder, true, layer);
    const ModelRun run = generation->run();
    auto whole = model->forward(generation->tokenIds(), layer, true);
    QVERIFY2(whole, qPrintable(whole.error()));

    // Rows summed over fewer keys may round otherwise than the whole pass (test_forward_cache):
    // everything within the contract's tolerance.
    QCOMPARE(run.token_ids, whole->token_ids);
    QCOMPARE(run.seqLen(), whole->seqLen());
    QVERIFY(mapsDifference(run.attention, whole->attention) <= kContractTolerance);
    QVERIFY(relativeDifference(run.last_hidden_state, whole->last_hidden_state) <= kContractTolerance);
    QCOMPARE(run.layer_inputs.size(), whole->layer_inputs.size());
    for (size_t l = 0; l < run.layer_inputs.size(); ++l)
        QVERIFY(relativeDifference(run.layer_inputs[l], whole->layer_inputs[l]) <= kContractTolerance);
    QCOMPARE(run.residual_stream.size(), whole->residual_stream.size());
    for (size_t l = 0; l < run.residual_stream.size(); ++l)
        QVERIFY(relativeDifference(run.residual_stream[l], whole->residual_stream[l]) <= kContractTolerance);
    QCOMPARE(run.selected_layer, layer);
    QVERIFY(relativeDifference(run.layer_input, whole->layer_input) <= kContractTolerance);
    const AttentionTrace& a = run.layer_trace;
    const AttentionTrace& b = whole->layer_trace;
    using Pair = std::pair<const Matrix*, const Matrix*>;
    for (const Pair& pair : std::initializer_list<Pair>{
             {&a.q, &b.q}, {&a.k, &b.k}, {&a.v, &b.v}, {&a.concat, &b.concat}, {&a.output, &b.output}})
        QVERIFY(relativeDifference(*pair.first, *pair.second) <= kContractTolerance);
    QCOMPARE(a.query_offset, 0);
    QVERIFY(relativeDifference(run.q_before_rotation, whole->q_before_rotation) <= kContractTolerance);
    QVERIFY(relativeDifference(run.k_before_rotation, whole->k_before_rotation) <= kContractTolerance);
    // Causal: nothing above the diagonal.
    for (int i = 0; i < run.seqLen(); ++i)
        QCOMPARE(run.attention.rowLength(i), i + 1);
}

void TestGeneration::endOfSequenceIds()
{
    // generation_config.json's list overrides config.json's 1; config.json alone; neither.
    QCOMPARE(*EndOfSequence::read(modelFixture("qwen2-tiny")), (std::vector<int>{150, 7}));
    QCOMPARE(*EndOfSequence::read(modelFixture("mistral-tiny")), (std::vector<int>{2}));
    QVERIFY(EndOfSequence::read(modelFixture("llama-biased"))->empty());

    QTemporaryDir dir;
    QVERIFY(copyFolder(modelFixture("gpt2-prefixed"), dir.path()));
    const QString path = dir.filePath("generation_config.json");
    for (const char* bad : {"{\"eos_token_id\": \"2\"}", "{\"eos_token_id\": [1, 2.5]}", "{\"eos_token_id\": -1}",
                            "{\"eos_token_id\": [", "[1]"}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(bad);
        file.close();
        auto refused = EndOfSequence::read(dir.path());
        QVERIFY2(!refused, bad);
        QVERIFY2(refused.error().startsWith("generation_config.json"), qPrintable(refused.error()));
    }
    // null or absent there: config.json's (0 for gpt2-prefixed).
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write("{\"eos_token_id\": null, \"bos_token_id\": 0}");
    file.close();
    QCOMPARE(*EndOfSequence::read(dir.path()), (std::vector<int>{0}));
}

void TestGeneration::sameSeedSameIds()
{
    const auto model = loadFolder(modelFixture("gpt2-tiny"));
    const std::vector<int> prompt = {8086, 1463, 2125, 470};
    SamplingSettings sampling;
    sampling.sample = true;
    sampling.temperature = 0.8;
    sampling.seed = 1;
    const std::vector<int> first = sampledIds(*model, prompt, sampling, 8);
    QCOMPARE(sampledIds(*model, prompt, sampling, 8), first);
    // gpt2-tiny's 50,257 tokens are nearly equally likely: another seed gives other ids (a
    // repeat of all 8 would be a 1e-30 coincidence).
    sampling.seed = 2;
    QVERIFY(sampledIds(*model, prompt, sampling, 8) != first);
    // Sampling with top-k 40 and top-p 0.9 stays reproducible too.
    sampling.top_k = 40;
    sampling.top_p = 0.9;
    QCOMPARE(sampledIds(*model, prompt, sampling, 8), sampledIds(*model, prompt, sampling, 8));
}

void TestGeneration::topKOneIsGreedy()
{
    const QString folder = modelFixture("llama-biased");
    const QJsonObject expected = readJsonObject(folder + QStringLiteral("/generation.json"));
    const auto model = loadFolder(folder);
    const std::vector<int> prompt = intList(expected["prompt_ids"].toArray());
    const std::vector<int> greedy_ids = intList(expected["generated_ids"].toArray());
    for (std::uint64_t seed : {0u, 7u, 12345u}) {
        SamplingSettings sampling;
        sampling.sample = true;
        sampling.temperature = 1.7;
        sampling.seed = seed;
        sampling.top_k = 1;
        QCOMPARE(sampledIds(*model, prompt, sampling, int(greedy_ids.size())), greedy_ids);
        sampling.top_k = 0;
        sampling.top_p = 1e-9;  // only the most likely token is left
        QCOMPARE(sampledIds(*model, prompt, sampling, int(greedy_ids.size())), greedy_ids);
    }
}

void TestGeneration::samplerWarpers()
{
    // Greedy: ties go to the lower id.
    const float tied[] = {0.5f, 2.0f, -1.0f, 2.0f};
    QCOMPARE(TokenSampler::argmax(tied, 4), 1);

    // p = softmax(log(0.1, 0.2, 0.3, 0.4)): counts of 4000 draws follow the warped distribution.
    const float logits[] = {std::log(0.1f), std::log(0.2f), std::log(0.3f), std::log(0.4f)};
    const auto counts = [&logits](SamplingSettings settings) {
        settings.sample = true;
        settings.seed = 99;
        TokenSampler sampler(settings);
        std::vector<int> seen(4, 0);
        for (int draw = 0; draw < 4000; ++draw)
            ++seen[size_t(sampler.choose(logits, 4))];
        return seen;
    };
    // Plain: within 5 standard deviations (at most sqrt(4000 * 0.25) = 32 draws: 160).
    const std::vector<int> plain = counts({});
    for (int id = 0; id < 4; ++id)
        QVERIFY2(std::abs(plain[size_t(id)] - 400 * (id + 1)) < 160, qPrintable(QString::number(plain[size_t(id)])));
    // top-k 2: only ids 2 and 3, in the ratio 3 : 4.
    SamplingSettings top_k;
    top_k.top_k = 2;
    const std::vector<int> two = counts(top_k);
    QCOMPARE(two[0] + two[1], 0);
    QVERIFY(std::abs(two[3] - 4000 * 4 / 7) < 160);
    // top-p 0.65: ascending cumulative 0.1, 0.3, 0.6, 1.0; <= 0.35 removed: ids 0 and 1 go.
    SamplingSettings top_p;
    top_p.top_p = 0.65;
    const std::vector<int> kept = counts(top_p);
    QCOMPARE(kept[0] + kept[1], 0);
    QVERIFY(kept[2] > 0 && kept[3] > 0);
    // top-p 0.75: 0.3 <= 0.25 is false: only id 0 goes.
    top_p.top_p = 0.75;
    const std::vector<int> three = counts(top_p);
    QCOMPARE(three[0], 0);
    QVERIFY(three[1] > 0);
    // A low temperature sharpens: at 0.1, id 3 has p = 0.4^10 / sum = 0.94.
    SamplingSettings cold;
    cold.temperature = 0.1;
    QVERIFY(counts(cold)[3] > 3600);
    // top-k ties: the k-th value's equals all stay.
    const float ties[] = {1.0f, 3.0f, 3.0f, 0.0f};
    SamplingSettings one;
    one.sample = true;
    one.top_k = 1;
    TokenSampler sampler(one);
    std::set<int> chosen;
    for (int draw = 0; draw < 200; ++draw)
        chosen.insert(sampler.choose(ties, 4));
    QCOMPARE(chosen, (std::set<int>{1, 2}));
}

void TestGeneration::stepsCallbackAndCancel()
{
    const auto model = loadFolder(modelFixture("llama-tiny"));
    GenerationRequest request;
    request.max_new_tokens = 10;
    auto generation = TokenGeneration::start(*model, {1, 15, 77, 3}, request);
    QVERIFY2(generation, qPrintable(generation.error()));
    std::atomic<bool> cancel{false};
    std::vector<int> positions;
    QVERIFY((*generation)->generate(&cancel, [&](const GenerationStep& step) {
        positions.push_back(step.position);
        if (positions.size() == 3)
            cancel = true;
    }));
    QVERIFY((*generation)->cancelled());
    QCOMPARE(positions, (std::vector<int>{4, 5, 6}));
    QCOMPARE((*generation)->generated(), 3);
    QCOMPARE((*generation)->run().seqLen(), 7);
    // Going on after a cancel completes the request.
    cancel = false;
    QVERIFY((*generation)->generate(&cancel));
    QVERIFY(!(*generation)->cancelled());
    QCOMPARE((*generation)->generated(), 10);
    QCOMPARE(int((*generation)->steps().size()), 10);
}

void TestGeneration::branchFromStep()
{
    const QString folder = modelFixture("llama-biased");
    const QJsonObject expected = readJsonObject(folder + QStringLiteral("/generation.json"));
    const auto model = loadFolder(folder);
    auto generation = greedy(*model, expected, folder);
    const int prompt = generation->promptLength();
    const GenerationStep third = generation->steps()[2];
    const int alternative = third.top_ids[1];
    QVERIFY(generation->branch(prompt + 2, alternative));
    QCOMPARE(generation->generated(), 3);
    QVERIFY(generation->steps()[2].forced);
    QCOMPARE(generation->steps()[2].top_ids, third.top_ids);  // the same point, the same alternatives
    QCOMPARE(generation->tokenIds()[size_t(prompt + 2)], alternative);
    QVERIFY(generation->generate());
    QCOMPARE(generation->generated(), 8);
    // The branch's cache was cut back: its run equals one pass over its own ids.
    const ModelRun run = generation->run();
    auto whole = model->forward(generation->tokenIds());
    QVERIFY(whole);
    QVERIFY(mapsDifference(run.attention, whole->attention) <= kContractTolerance);
    QVERIFY(relativeDifference(run.last_hidden_state, whole->last_hidden_state) <= kContractTolerance);

    QVERIFY(!generation->branch(prompt - 1, 3));   // inside the prompt
    QVERIFY(!generation->branch(prompt + 1, 72));  // outside the vocabulary
    QVERIFY(!generation->branch(prompt + 8, 3));   // at the planned length
}

void TestGeneration::refusals()
{
    const auto gpt2 = loadFolder(modelFixture("gpt2-tiny"));  // 64 positions
    const std::vector<int> prompt(12, 464);
    GenerationRequest request;
    request.max_new_tokens = 52;
    QVERIFY(TokenGeneration::plan(*gpt2, prompt, request));
    request.max_new_tokens = 53;
    auto past = TokenGeneration::plan(*gpt2, prompt, request);
    QVERIFY(!past);
    QVERIFY2(past.error().contains("64 positions (n_positions)"), qPrintable(past.error()));
    for (int count : {0, -1, 4097}) {
        request.max_new_tokens = count;
        QVERIFY(!TokenGeneration::plan(*gpt2, prompt, request));
    }
    request.max_new_tokens = 4;
    QVERIFY(!TokenGeneration::plan(*gpt2, {50257}, request));  // outside the vocabulary
    QVERIFY(!TokenGeneration::plan(*gpt2, {}, request));
    for (double temperature : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
        request.sampling = SamplingSettings{};
        request.sampling.sample = true;
        request.sampling.temperature = temperature;
        QVERIFY(!TokenGeneration::plan(*gpt2, prompt, request));
    }
    for (double top_p : {0.0, -0.5, 1.5, std::nan("")}) {
        request.sampling = SamplingSettings{};
        request.sampling.top_p = top_p;
        QVERIFY(!TokenGeneration::plan(*gpt2, prompt, request));
    }
    request.sampling = SamplingSettings{};

    // Rotary models take a pass of any length, but a generation stops at max_position_embeddings
    // as the contract says (llama-tiny: 128).
    const auto llama = loadFolder(modelFixture("llama-tiny"));
    request.max_new_tokens = 124;
    QVERIFY(TokenGeneration::plan(*llama, {1, 2, 3, 4}, request));
    request.max_new_tokens = 125;
    auto rotary = TokenGeneration::plan(*llama, {1, 2, 3, 4}, request);
    QVERIFY(!rotary);
    QVERIFY2(rotary.error().contains("128 positions (max_position_embeddings)"), qPrintable(rotary.error()));

    const auto bert = loadFolder(modelFixture("bert-tiny"));
    request.max_new_tokens = 2;
    auto bidirectional = TokenGeneration::plan(*bert, {101, 7592, 102}, request);
    QVERIFY(!bidirectional);
    QVERIFY2(bidirectional.error().contains("causal"), qPrintable(bidirectional.error()));

    QTemporaryDir dir;
    QVERIFY(copyFolder(modelFixture("mistral-tiny"), dir.path()));
    QVERIFY(editTensors(dir.path(), [](std::vector<StTensor>& t) {
        std::erase_if(t, [](const StTensor& s) { return s.name == QStringLiteral("lm_head.weight"); });
    }));
    const auto headless = loadFolder(dir.path());
    auto no_head = TokenGeneration::start(*headless, {1, 40, 41}, request);
    QVERIFY(!no_head);
    QVERIFY2(no_head.error().contains("prediction head"), qPrintable(no_head.error()));
}

REGISTER_TEST_SUITE(TestGeneration, QCoreApplication)
#include "test_generation.moc"
