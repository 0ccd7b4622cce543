// WeightFile::load as the command line and the window use it: which files it accepts, the JSON
// weights, the shipped toy example run through the engine, and weights made by PyTorch.

#include "core/attention/AttentionEngine.h"
#include "core/io/NpyReader.h"
#include "core/io/NpzReader.h"
#include "core/weights/JsonWeightsReader.h"
#include "core/weights/WeightFile.h"
#include "core/weights/WeightNaming.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WeightFileWriters.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace attn;
using namespace attn::testing;

namespace {

const QString kExamples = sourcePath("resources/examples/");
const QString kFixtures = fixturesPath("weights/");

// {"num_heads": 1, "wq": ..., "wk": ..., "wv": ...} of the 4-d toy, with `extra` keys spliced in.
QByteArray toyJson(const QByteArray& extra = {}, const QByteArray& heads = "\"num_heads\": 1, ")
{
    return "{" + heads + extra +
           "\"wq\": [[1,0,1],[1,0,0],[0,0,1],[0,1,1]], \"wk\": [[0,0,1],[1,1,0],[0,1,0],[1,1,0]], "
           "\"wv\": [[0,2,0],[0,3,0],[1,0,3],[1,1,0]]}";
}

Matrix tensor(NpzReader& npz, const QString& name)
{
    auto array = npz.readTensor(name);
    return array.ok() ? array->values : Matrix();
}

// A reference for one attention layer over x: each head's weights and the output.
struct LayerReference {
    std::vector<DoubleMatrix> attention;  // per head (queries, keys)
    DoubleMatrix output;
};

// How the engine's run and the reference may differ: `passes` float32 passes (1 against float64,
// 2 against PyTorch's float32), the engine's input and weights rounded to float32 from the
// reference's (relatively: input_error, weight_error), and the reference itself stored to a
// relative precision (`stored_error`: float32's u, or a printed decimal's).
struct Differences {
    int passes = 1;
    double input_error = 0.0;
    double weight_error = 0.0;
    double stored_error = 0.0;
};

// Where the engine's trace lies beyond the float32 error bounds of tests/support/Float32Bounds.h
// from the reference, which hold for any order of the sums (every kernel path); empty when within.
QString beyondLayerBounds(const AttentionTrace& trace, const AttentionWeights& w, const Matrix& x,
                          const LayerReference& reference, double scale, const Differences& differences)
{
    std::vector<DoubleMatrix> larger;
    for (size_t h = 0; h < trace.probabilities.size(); ++h)
        larger.push_back(reference.attention[h].cwiseAbs().cwiseMax(trace.probabilities[h].cast<double>().cwiseAbs()));
    const DoubleMatrix dx = x.cast<double>().cwiseAbs() * differences.input_error;
    const AttentionLayerBounds bounds =
        attentionLayerBounds(w, {x, dx, trace.q, trace.k, larger, nullptr, nullptr, differences.weight_error}, {},
                             scale, differences.passes);
    const AttentionOutputBounds out =
        attentionOutputBounds(w, bounds, larger, trace.v, trace.concat, differences.weight_error, differences.passes);
    double share = 0.0, worst = 0.0;
    for (size_t h = 0; h < trace.probabilities.size(); ++h) {
        const QString beyond = beyondBound("attention", trace.probabilities[h], reference.attention[h],
                                           bounds.probabilities[h] + differences.stored_error * larger[h], &share);
        worst = std::max(worst, share);
        if (!beyond.isEmpty())
            return QStringLiteral("head %1: %2").arg(h).arg(beyond);
    }
    const DoubleMatrix larger_output = reference.output.cwiseAbs().cwiseMax(trace.output.cast<double>().cwiseAbs());
    const QString beyond = beyondBound("output", trace.output, reference.output,
                                       out.output + differences.stored_error * larger_output, &share);
    qInfo("worst error %.3g of the float32 bound", std::max(worst, share));
    return beyond;
}

// The per-head attention stored as (heads, queries * keys).
std::vector<DoubleMatrix> headAttention(const Matrix& stored, int queries)
{
    std::vector<DoubleMatrix> heads;
    for (Eigen::Index h = 0; h < stored.rows(); ++h) {
        const Matrix row = stored.row(h);
        heads.push_back(Eigen::Map<const Matrix>(row.data(), queries, row.cols() / queries).cast<double>());
    }
    return heads;
}

}  // namespace

class TestWeightFiles : public QObject {
    Q_OBJECT

private slots:
    // --- the shipped example, through the engine ---
    void toyExampleGivesTheHandComputedAttention()
    {
        auto loaded = WeightFile::load(kExamples + "toy-4d.json");
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(loaded->scheme, QString("json"));
        QCOMPARE(loaded->weights.num_heads, 1);
        QCOMPARE(loaded->weights.inputDim(), 4);
        QCOMPARE(loaded->weights.dModel(), 3);
        QVERIFY(!loaded->weights.hasOutputProjection());
        auto x = NpyReader::readMatrixFile(kExamples + "toy-4d-input.npy");
        QVERIFY2(x.ok(), qPrintable(x.error()));

        AttentionOptions options;
        options.scale = ScaleSetting{ScaleSetting::Mode::None};
        auto trace = AttentionEngine::forward(*x, loaded->weights, options);
        QVERIFY2(trace.ok(), qPrintable(trace.error()));
        // Query 0 scores the keys [2, 4, 4]: softmax = [e^2, e^4, e^4] / (e^2 + 2 e^4).
        // Reference values from numpy in float64 (resources/examples/make_toy_input.py's docstring),
        // printed to 9 digits (within 5e-9 relatively) and read as float32 (u): the engine's first
        // two rows and first output row within one pass's bounds of them.
        const float row0[3] = {0.06337894f, 0.46831053f, 0.46831053f};
        const float row1[3] = {6.03366485e-06f, 9.82007865e-01f, 1.79861014e-02f};
        const float out0[3] = {1.93662106f, 6.68310531f, 1.59506841f};
        LayerReference reference{{DoubleMatrix(trace->probabilities[0].cast<double>())},
                                 DoubleMatrix(trace->output.cast<double>())};  // rows not written out: itself
        for (int j = 0; j < 3; ++j) {
            reference.attention[0](0, j) = row0[j];
            reference.attention[0](1, j) = row1[j];
            reference.output(0, j) = out0[j];
        }
        const QString beyond = beyondLayerBounds(*trace, loaded->weights, *x, reference, 1.0,
                                                 {.passes = 1, .stored_error = 5e-9 + kUnitRoundoff});
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    // --- weights and references made by PyTorch (tests/fixtures/weights/make_weight_fixtures.py) ---
    void torchMultiheadAttentionMatchesTorch()
    {
        const QString path = kFixtures + "mha_e8_h2.npz";  // numpy.savez: stored, zip64 extras
        auto loaded = WeightFile::load(path);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(loaded->scheme, QString("nn.MultiheadAttention"));
        QCOMPARE(loaded->weights.num_heads, 2);  // from the int64 member num_heads
        auto npz = NpzReader::open(path);
        QVERIFY(npz.ok());
        const Matrix x = tensor(**npz, "x");                           // (5, 8)
        const Matrix expected = tensor(**npz, "expected_output");      // (5, 8)
        const Matrix attention = tensor(**npz, "expected_attention");  // (2, 5 * 5)
        QCOMPARE(x.rows(), 5);
        auto trace = AttentionEngine::forward(x, loaded->weights);
        QVERIFY2(trace.ok(), qPrintable(trace.error()));
        // float32 against torch's float32 on the same inputs and weights: two passes' bounds.
        const QString beyond =
            beyondLayerBounds(*trace, loaded->weights, x, {headAttention(attention, 5), expected.cast<double>()},
                              1.0 / std::sqrt(double(loaded->weights.headDim())), {.passes = 2});
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    void torchSeparateProjectionsMatchTorch()
    {
        const QString path = kFixtures + "proj_e8_h4.npz";  // numpy.savez_compressed, float64
        auto loaded = WeightFile::load(path);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(loaded->scheme, QString("q_proj/k_proj/v_proj"));
        QCOMPARE(loaded->tensor_prefix, QString("model.layers.0.self_attn."));
        QCOMPARE(loaded->weights.num_heads, 4);  // from a 1-element int32 array
        QCOMPARE(loaded->weights.inputDim(), 6);
        QVERIFY(loaded->weights.hasOutputProjection());
        QCOMPARE(loaded->weights.out_bias.size(), 0);  // o_proj has no bias
        auto npz = NpzReader::open(path);
        QVERIFY(npz.ok());
        AttentionOptions options;
        options.causal = true;
        const Matrix x = tensor(**npz, "x");
        auto trace = AttentionEngine::forward(x, loaded->weights, options);
        QVERIFY2(trace.ok(), qPrintable(trace.error()));
        const Matrix expected = tensor(**npz, "expected_output");      // (4, 8), from float64
        const Matrix attention = tensor(**npz, "expected_attention");  // (4, 4 * 4)
        // One float32 pass against float64: x, the weights and the reference were float64, each
        // read as float32 (u / (1 - u) relatively).
        const double rounded = kUnitRoundoff / (1.0 - kUnitRoundoff);
        const QString beyond =
            beyondLayerBounds(*trace, loaded->weights, x, {headAttention(attention, 4), expected.cast<double>()},
                              1.0 / std::sqrt(double(loaded->weights.headDim())),
                              {.passes = 1, .input_error = rounded, .weight_error = rounded, .stored_error = rounded});
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    // --- which paths are weight files ---
    void refusesPaths_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("kind");  // "missing", "directory", "fifo" or file content
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing file") << "absent.safetensors"
                                      << "missing"
                                      << "absent.safetensors: no such file";
        QTest::newRow("directory") << "dir.npz"
                                   << "directory"
                                   << "dir.npz: is a directory, not a weight file";
        QTest::newRow("unsupported extension")
            << "weights.txt"
            << "{}"
            << "weights.txt: unsupported extension '.txt'; weight files are .safetensors, .npz or .json";
        QTest::newRow("no extension") << "weights"
                                      << "{}"
                                      << "weights: unsupported extension";
        QTest::newRow("pytorch pickle") << "model.pt"
                                        << "x"
                                        << "model.pt: PyTorch pickle files (.pt) are not read";
        QTest::newRow("empty safetensors") << "e.safetensors"
                                           << ""
                                           << "e.safetensors: not a safetensors file: 0 bytes";
        QTest::newRow("empty npz") << "e.npz"
                                   << ""
                                   << "e.npz: not a zip archive";
        QTest::newRow("empty json") << "e.json"
                                    << ""
                                    << "e.json: not valid JSON";
    }
    void refusesPaths()
    {
        QFETCH(QString, name);
        QFETCH(QString, kind);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        if (kind == "directory")
            QVERIFY(QDir(dir.path()).mkdir(name));
        else if (kind != "missing")
            QVERIFY(writeFile(path, kind.toUtf8()));
        auto loaded = WeightFile::load(path);
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().startsWith(reason), qPrintable(loaded.error()));
    }

    void refusesDevicesWithoutReadingThem()
    {
        // A link to /dev/zero would never end: it is refused before being opened.
        QTemporaryDir dir;
        const QString path = dir.filePath("zero.json");
        QVERIFY(QFile::link("/dev/zero", path));
        auto loaded = WeightFile::load(path);
        QVERIFY(!loaded.ok());
        QCOMPARE(loaded.error(), QString("zero.json: is not a regular file"));
    }

    void extensionIsCaseInsensitive()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("TOY.JSON");
        QVERIFY(writeFile(path, toyJson()));
        auto loaded = WeightFile::load(path);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    }

    // --- JSON weights ---
    void jsonWithEveryPart()
    {
        const QByteArray json = toyJson(
            "\"bq\": [1, 2, 3], \"bv\": [0.5, 0.25, 0.125], \"wo\": [[1, 0], [0, 1], [1, 1]], "
            "\"bo\": [-1, 1], \"comment\": \"notes are fine\", \"_source\": 1, ");
        auto w = JsonWeightsReader::parse(json);
        QVERIFY2(w.ok(), qPrintable(w.error()));
        QCOMPARE(w->num_heads, 1);
        QCOMPARE(w->in_proj(3, 1), 1.0f);  // wq[3][1]
        QCOMPARE(w->in_proj(2, 8), 3.0f);  // wv[2][2]
        RowVector bias(9);
        bias << 1, 2, 3, 0, 0, 0, 0.5f, 0.25f, 0.125f;  // bk missing: zero
        QCOMPARE(w->in_bias, bias);
        QCOMPARE(w->outputDim(), 2);
        QCOMPARE(w->out_bias(0), -1.0f);
        auto overridden = JsonWeightsReader::parse(toyJson({}, "\"num_heads\": 2, "), 3);
        QVERIFY2(overridden.ok(), qPrintable(overridden.error()));
        QCOMPARE(overridden->num_heads, 3);
        auto noKey = JsonWeightsReader::parse(toyJson({}, {}), 1);
        QVERIFY2(noKey.ok(), qPrintable(noKey.error()));
    }

    void jsonRejects_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<int>("layer");
        QTest::addColumn<QString>("reason");
        QTest::newRow("invalid JSON") << QByteArray("{\"wq\": [[1, 2]") << 0 << "not valid JSON";
        QTest::newRow("NaN literal") << QByteArray("{\"num_heads\": 1, \"wq\": [[NaN]]}") << 0 << "not valid JSON";
        QTest::newRow("array root") << QByteArray("[[1, 2]]") << 0 << "not an object";
        QTest::newRow("non-rectangular") << toyJson().replace("[0,1,1]]", "[0,1]]") << 0
                                         << "'wq' is not rectangular: row 3 has 2 numbers, row 0 has 3";
        QTest::newRow("non-numeric") << toyJson().replace("[1,0,0]", "[1,\"a\",0]") << 0
                                     << "'wq' row 1 column 1 is not a number";
        QTest::newRow("null entry") << toyJson().replace("[1,0,0]", "[1,null,0]") << 0
                                    << "'wq' row 1 column 1 is not a number";
        QTest::newRow("row not an array") << toyJson().replace("[1,0,0]", "7") << 0 << "'wq' row 1 is not an array";
        QTest::newRow("flat matrix") << QByteArray("{\"num_heads\": 1, \"wq\": [1, 2], \"wk\": [1, 2], \"wv\": [1, 2]}")
                                     << 0 << "'wq' row 0 is not a non-empty array";
        QTest::newRow("empty matrix") << toyJson().replace("\"wq\": [[1,0,1],[1,0,0],[0,0,1],[0,1,1]]", "\"wq\": []")
                                      << 0 << "'wq' is not a non-empty array";
        QTest::newRow("inconsistent dims")
            << toyJson().replace("\"wk\": [[0,0,1],[1,1,0],[0,1,0],[1,1,0]]", "\"wk\": [[0,0,1],[1,1,0],[0,1,0]]") << 0
            << "'wk' is 3 x 3 but 'wq' is 4 x 3";
        QTest::newRow("bias length") << toyJson("\"bq\": [1, 2], ") << 0 << "'bq' has 2 entries, expected d_model = 3";
        QTest::newRow("bias not numbers") << toyJson("\"bk\": [1, true, 2], ") << 0 << "'bk' entry 1 is not a number";
        QTest::newRow("wo rows") << toyJson("\"wo\": [[1, 0], [0, 1]], ") << 0
                                 << "'wo' is 2 x 2; it must have d_model = 3 rows";
        QTest::newRow("bo length") << toyJson("\"wo\": [[1, 0], [0, 1], [1, 1]], \"bo\": [1, 2, 3], ") << 0
                                   << "'bo' has 3 entries, expected the output dimension 2";
        QTest::newRow("missing wv") << QByteArray("{\"num_heads\": 1, \"wq\": [[1]], \"wk\": [[1]]}") << 0
                                    << "the required key 'wv' is missing";
        QTest::newRow("no num_heads") << toyJson({}, {}) << 0 << "no \"num_heads\" key";
        QTest::newRow("num_heads zero") << toyJson({}, "\"num_heads\": 0, ") << 0
                                        << "num_heads 0 is not a positive integer";
        QTest::newRow("num_heads fraction")
            << toyJson({}, "\"num_heads\": 1.5, ") << 0 << "\"num_heads\" is not an integer";
        QTest::newRow("num_heads string")
            << toyJson({}, "\"num_heads\": \"1\", ") << 0 << "\"num_heads\" is not an integer";
        QTest::newRow("heads do not divide d_model")
            << toyJson({}, "\"num_heads\": 2, ") << 0 << "d_model 3 is not divisible by 2 heads";
        QTest::newRow("beyond float32") << toyJson().replace("[1,0,0]", "[1,1e39,0]") << 0
                                        << "'wq' row 1 column 1 (1e+39) is not a finite float32 value";
        QTest::newRow("unknown key") << toyJson("\"w_o\": [[1]], ") << 0 << "unknown key 'w_o'";
        // Counts are refused as soon as they pass the limit, not after the whole text is parsed.
        QByteArray rows = "{\"num_heads\": 1, \"wq\": [[0]";
        for (int r = 1; r < 70000; ++r)
            rows += ",[0]";
        QTest::newRow("70000 rows") << rows + "]}" << 0
                                    << "'wq' has more than 65536 rows (dimensions above 65536 are not supported)";
        QTest::newRow("70000 columns") << "{\"num_heads\": 1, \"wq\": [[0" + QByteArray(70000, ',').replace(",", ",0") +
                                              "]]}"
                                       << 0 << "'wq' row 0 has more than 65536 numbers";
        QTest::newRow("70000 bias entries") << toyJson("\"bq\": [0" + QByteArray(70000, ',').replace(",", ",0") + "], ")
                                            << 0 << "'bq' has more than 65536 entries";
        QTest::newRow("repeated key") << toyJson("\"wq\": [[1]], ") << 0 << "the key 'wq' appears twice";
        QTest::newRow("repeated note") << toyJson("\"comment\": 1, \"comment\": 2, ") << 0
                                       << "the key 'comment' appears twice";
        QTest::newRow("trailing comma") << toyJson().replace("[0,1,1]]", "[0,1,1],]") << 0 << "not valid JSON";
        QTest::newRow("text after the object")
            << toyJson() + " {}" << 0 << "not valid JSON (unexpected text after the JSON value";
        QTest::newRow("lone surrogate in a note")
            << toyJson("\"comment\": \"\\ud800\", ") << 0 << "not valid JSON (lone high surrogate";
        QTest::newRow("nested 200 deep in a note")
            << toyJson("\"_deep\": " + QByteArray(200, '[') + QByteArray(200, ']') + ", ") << 0
            << "more than 128 nested arrays and objects";
        QTest::newRow("byte order mark") << "\xef\xbb\xbf" + toyJson() << 0 << "not valid JSON";
        QTest::newRow("leading zero") << toyJson().replace("[1,0,0]", "[1,00,0]") << 0 << "not valid JSON";
        QTest::newRow("layer beyond json")
            << toyJson() << 1 << "layer 1 is out of range: the file holds 1 attention layer";
    }
    void jsonRejects()
    {
        QFETCH(QByteArray, json);
        QFETCH(int, layer);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = dir.filePath("toy.json");
        QVERIFY(writeFile(path, json));
        auto loaded = WeightFile::load(path, {layer, 0});
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().startsWith("toy.json: "), qPrintable(loaded.error()));
        QVERIFY2(loaded.error().contains(reason), qPrintable(loaded.error()));
        // Core messages name no command-line option: the window shows them too.
        QVERIFY2(!loaded.error().contains("--"), qPrintable(loaded.error()));
    }

    void jsonAcceptsWhatJsonAllows()
    {
        // Escapes and Unicode in notes, every number form, underflow to zero, whitespace anywhere.
        const QByteArray json =
            "\r\n\t{ \"description\" : \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" Ã©\",\n"
            "\"num_heads\":1,\"wq\":[[-0,1E1],[1e-400,2.5e-1]],\"wk\":[[0,0],[0,0]],"
            "\"wv\":[[1,1],[1,1]], \"_notes\": [null, true, false, {\"a\": []}]}  ";
        auto w = JsonWeightsReader::parse(json);
        QVERIFY2(w.ok(), qPrintable(w.error()));
        QCOMPARE(w->in_proj(0, 1), 10.0f);
        QCOMPARE(w->in_proj(1, 0), 0.0f);  // 1e-400 underflows to 0
        QCOMPARE(w->in_proj(1, 1), 0.25f);
    }

    // The file's dimensions are refused with the engine's own limits, before anything is read.
    void weightLimitsMatchTheEngine()
    {
        const int most = int(WeightNaming::kMaxDimension);
        QVERIFY(AttentionWeights::checkDimensions(most, 1, 1).ok());
        QVERIFY(!AttentionWeights::checkDimensions(most + 1, 1, 1).ok());
        QVERIFY(AttentionWeights::checkDimensions(1, most, 1).error().contains("parameters"));
        QVERIFY(AttentionWeights::checkDimensions(1, most + 1, 1).error().contains("above 65536"));
        // input_dim * 3 * d_model + d_model^2 = kMaxParameters exactly, then one input row more.
        QCOMPARE(std::int64_t(16384) * 3 * 16384 + std::int64_t(16384) * 16384, WeightNaming::kMaxParameters);
        QVERIFY(AttentionWeights::checkDimensions(16384, 16384, 1).ok());
        QVERIFY(!AttentionWeights::checkDimensions(16385, 16384, 1).ok());
    }

    // --- every scheme in npz as well as safetensors ---
    void npzSchemes_data()
    {
        QTest::addColumn<int>("scheme");
        QTest::newRow("nn.MultiheadAttention") << 0;
        QTest::newRow("q_proj_weight (kdim)") << 1;
        QTest::newRow("q_proj/k_proj/v_proj") << 2;
        QTest::newRow("gpt2") << 3;
    }
    void npzSchemes()
    {
        QFETCH(int, scheme);
        const SampleWeights w = SampleWeights::make(4, 4, 6);
        const std::vector<NamedF32> tensors = scheme == 0   ? mhaTensors(w, "self_attn.")
                                              : scheme == 1 ? mhaSeparateTensors(w)
                                              : scheme == 2 ? projTensors(w, "bert.attn.")
                                                            : gpt2Tensors(w, "transformer.h.0.attn.");
        QTemporaryDir dir;
        const QString path = dir.filePath("w.npz");
        QVERIFY(writeNpz(path, tensors));
        auto loaded = WeightFile::load(path, {0, 2});
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(Matrix(loaded->weights.wq()), w.wq);
        QCOMPARE(Matrix(loaded->weights.wk()), w.wk);
        QCOMPARE(Matrix(loaded->weights.wv()), w.wv);
        QCOMPARE(loaded->weights.out_proj, w.wo);
        QCOMPARE(loaded->weights.out_bias, w.bo);
        QCOMPARE(RowVector(loaded->weights.in_bias.tail(4)), w.bv);
    }

    void loadingIsFastEnoughToBenchmark()
    {
        // GPT-2-small-sized attention layer (768 x 2304 + 768 x 768 floats, ~9 MB) from safetensors.
        QTemporaryDir dir;
        const QString path = dir.filePath("gpt2.safetensors");
        std::vector<StTensor> st;
        st.push_back({"h.0.attn.c_attn.weight", "F32", {768, 2304}, f32Bytes(std::vector<float>(768 * 2304, 0.01f))});
        st.push_back({"h.0.attn.c_proj.weight", "F32", {768, 768}, f32Bytes(std::vector<float>(768 * 768, 0.02f))});
        QVERIFY(writeFile(path, safetensors(st)));
        QBENCHMARK
        {
            auto loaded = WeightFile::load(path, {0, 12});
            QVERIFY(loaded.ok());
        }
    }
};

REGISTER_TEST_SUITE(TestWeightFiles, QCoreApplication)
#include "test_weight_files.moc"
