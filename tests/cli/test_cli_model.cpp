// --model through the real executable (docs/command-line.md, "Real models"): the JSON of a whole
// model, pictures of its selected layer, and every error of the contract as one `error:` line
// with no output file left behind, on malformed folders the test writes from the fixtures of
// tests/fixtures/models/.
#include "tests/support/Float32Bounds.h"
#include "tests/support/ModelFolders.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attn::testing;

namespace {

using FolderEdit = std::function<void(const QString& dir)>;

QStringList withFolder(const QStringList& arguments, const QString& dir)
{
    QStringList out;
    for (const QString& a : arguments)
        out << QString(a).replace("{dir}", dir);
    return out;
}

QString idList(int count, int id = 1)
{
    QStringList ids;
    for (int i = 0; i < count; ++i)
        ids << QString::number(id);
    return ids.join(',');
}

QString expectedIds(const QString& fixture)
{
    QStringList ids;
    for (const QJsonValue& id : readJsonObject(modelFixture(fixture) + "/expected.json")["token_ids"].toArray())
        ids << QString::number(id.toInt());
    return ids.join(',');
}

void removeTensor(const QString& dir, const QString& name)
{
    QVERIFY(editTensors(
        dir, [&](std::vector<StTensor>& t) { std::erase_if(t, [&](const StTensor& s) { return s.name == name; }); }));
}

}  // namespace

class TestCliModel : public QObject {
    Q_OBJECT

private slots:
    void jsonAgreesWithTransformers_data();
    void jsonAgreesWithTransformers();
    void defaultSentenceIsTokenized();
    void exportDrawsTheSelectedLayer_data();
    void exportDrawsTheSelectedLayer();
    void contractErrors_data();
    void contractErrors();
    void windowScreenshotOfAModel_data();
    void windowScreenshotOfAModel();
    void windowRefusesABrokenModel();
    void windowOnTokenIds();
    void brokenTokenizerTakesTokenIds();
};

void TestCliModel::jsonAgreesWithTransformers_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<bool>("sentence");  // --sentence through the folder's tokenizer, else --token-ids
    // The cases with a tokenizer (vocab.json + merges.txt, vocab.txt, tokenizer.json), both ways.
    for (const char* name : {"gpt2-tiny", "bert-tiny", "distilbert-tiny"}) {
        QTest::addRow("%s --sentence", name) << QString::fromLatin1(name) << true;
        QTest::addRow("%s --token-ids", name) << QString::fromLatin1(name) << false;
    }
    QTest::newRow("gpt2-prefixed --token-ids (no tokenizer)") << "gpt2-prefixed" << false;
    // The rotary decoders, without tokenizers (their tokenizer.json pipeline is not this test's).
    for (const char* name :
         {"llama-tiny", "qwen2-tiny", "mistral-tiny", "llama-biased", "pythia-tiny", "neox-sequential"})
        QTest::addRow("%s --token-ids", name) << QString::fromLatin1(name) << false;
}

void TestCliModel::jsonAgreesWithTransformers()
{
    QFETCH(QString, fixture);
    QFETCH(bool, sentence);
    const QJsonObject expected = readJsonObject(modelFixture(fixture) + "/expected.json");
    QTemporaryDir out;
    const QString path = out.filePath("model.json");
    const QStringList input = sentence ? QStringList{"--sentence", expected["sentence"].toString()}
                                       : QStringList{"--token-ids", expectedIds(fixture)};
    const ProgramRun run = runProgram(QStringList{"--model", modelFixture(fixture), "--json", path} + input);
    QVERIFY2(run.exit_code == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    QCOMPARE(QDir(out.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"model.json"});
    const QJsonObject json = readJsonObject(path);

    QCOMPARE(json["model"].toObject(), expected["model"].toObject());
    QCOMPARE(json["token_ids"].toArray(), expected["token_ids"].toArray());
    // convert_ids_to_tokens with --sentence or --token-ids alike; ids in decimal without a tokenizer.
    const QJsonArray tokens = json["tokens"].toArray();
    QCOMPARE(tokens, expected["tokens"].toArray());
    const bool causal = expected["model"]["causal"].toBool();

    // The numbers as written in the JSON (shortest float32 text): the contract's 2e-5 against
    // float64 (attention absolutely, the hidden state relative to its largest value).
    const QJsonArray attention = json["attention"].toArray();
    const QJsonArray want = expected["attention"].toArray();
    QCOMPARE(attention.size(), want.size());
    for (int l = 0; l < want.size(); ++l)
        for (int h = 0; h < want[l].toArray().size(); ++h) {
            const QJsonArray rows = attention[l][h].toArray();
            QCOMPARE(rows.size(), tokens.size());
            for (int i = 0; i < rows.size(); ++i) {
                double sum = 0;
                for (int j = 0; j < rows[i].toArray().size(); ++j) {
                    const double w = rows[i][j].toDouble();
                    sum += w;
                    QVERIFY(std::abs(w - want[l][h][i][j].toDouble()) <= 2e-5);
                    if (causal && j > i)
                        QCOMPARE(w, 0.0);
                }
                // Float32Bounds.h: a float32 softmax row, and the JSON texts within u of each.
                QVERIFY(std::abs(sum - 1.0) <= rowSumBound(rows[i].toArray().size()) + 2 * kUnitRoundoff);
            }
        }
    const QJsonArray hidden = json["last_hidden_state"].toArray();
    const QJsonArray want_hidden = expected["last_hidden_state"].toArray();
    double largest = 0, error = 0;
    for (int t = 0; t < want_hidden.size(); ++t)
        for (int c = 0; c < want_hidden[t].toArray().size(); ++c) {
            largest = std::max(largest, std::abs(want_hidden[t][c].toDouble()));
            error = std::max(error, std::abs(hidden[t][c].toDouble() - want_hidden[t][c].toDouble()));
        }
    QVERIFY2(error <= 2e-5 * largest, qPrintable(QString::number(error / largest)));

    // The head's top-5 (an addition): GPT-2 at every position, BERT and DistilBERT at each
    // [MASK] (the fixtures keep consecutive logits at least 1.3e-4 apart: the order is certain).
    const QJsonArray top5 = json["top5"].toArray();
    const QJsonArray want_top5 = expected["top5"].toArray();
    QCOMPARE(top5.size(), want_top5.size());
    for (int i = 0; i < top5.size(); ++i) {
        QCOMPARE(top5[i]["position"].toInt(), want_top5[i]["position"].toInt());
        QCOMPARE(top5[i]["ids"].toArray(), want_top5[i]["ids"].toArray());
        QCOMPARE(top5[i]["tokens"].toArray().size(), 5);
    }
}

void TestCliModel::defaultSentenceIsTokenized()
{
    // Without --sentence or --token-ids: "The cat sat on the rug and it was dry-cleaned." by
    // GPT-2's byte-level BPE (no special tokens).
    const ProgramRun run = runProgram({"--model", modelFixture("gpt2-tiny"), "--json", "-"});
    QVERIFY2(run.exit_code == 0, run.err.constData());
    const QJsonObject json = QJsonDocument::fromJson(run.out).object();
    const QJsonArray tokens = json["tokens"].toArray();
    QCOMPARE(tokens.first().toString(), QStringLiteral("The"));
    QCOMPARE(tokens[1].toString(), QString::fromUtf8("\u0120cat"));  // Ġcat
    QCOMPARE(json["token_ids"][0].toInt(), 464);
    QCOMPARE(json["attention"][1].toArray().size(), 4);
    QCOMPARE(json["attention"][1][3].toArray().size(), tokens.size());
}

void TestCliModel::exportDrawsTheSelectedLayer_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("grid of layer 1") << QStringList{"--view", "grid", "--layer", "1"};
    QTest::newRow("one head of layer 0") << QStringList{"--view", "head", "--head", "2"};
    QTest::newRow("compare") << QStringList{"--view", "compare", "--compare", "0,1", "--layer", "1"};
    QTest::newRow("lines") << QStringList{"--view", "lines", "--head", "1"};
    QTest::newRow("shapes") << QStringList{"--view", "shapes", "--head", "1"};
}

void TestCliModel::exportDrawsTheSelectedLayer()
{
    QFETCH(QStringList, arguments);
    QTemporaryDir out;
    const QString path = out.filePath("layer.png");
    const ProgramRun run = runProgram(QStringList{"--model", modelFixture("gpt2-prefixed"), "--token-ids",
                                                  expectedIds("gpt2-prefixed"), "--export", path, "--size", "640x480"} +
                                      arguments);
    QVERIFY2(run.exit_code == 0, run.err.constData());
    QImage image(path);
    QCOMPARE(image.size(), QSize(640, 480));
}

void TestCliModel::contractErrors_data()
{
    QTest::addColumn<QString>("fixture");  // copied into a temporary folder, then edited
    QTest::addColumn<FolderEdit>("edit");
    QTest::addColumn<QStringList>("arguments");  // "{dir}" is the folder
    QTest::addColumn<QString>("message");

    const FolderEdit keep = [](const QString&) {};
    const auto config = [](std::function<void(QJsonObject&)> change) {
        return FolderEdit([change](const QString& dir) { QVERIFY(editConfig(dir, change)); });
    };
    const QStringList model = {"--model", "{dir}", "--token-ids", "1,2,3"};

    QTest::newRow("missing folder") << "gpt2-tiny" << keep
                                    << QStringList{"--model", "{dir}/nothing", "--token-ids", "1"} << "no such folder";
    QTest::newRow("missing config.json") << "gpt2-tiny"
                                         << FolderEdit([](const QString& dir) { QFile::remove(dir + "/config.json"); })
                                         << model << "no config.json";
    QTest::newRow("config.json not JSON")
        << "gpt2-tiny" << FolderEdit([](const QString& dir) { writeFile(dir + "/config.json", "{\"n_embd\": 3"); })
        << model << "config.json: not valid JSON";
    QTest::newRow("missing dimension") << "gpt2-tiny" << config([](QJsonObject& c) { c.remove("n_head"); }) << model
                                       << "'n_head' (or 'num_attention_heads') is missing";
    QTest::newRow("non-positive dimension") << "bert-tiny" << config([](QJsonObject& c) { c["num_hidden_layers"] = 0; })
                                            << model << "'num_hidden_layers' must be a positive integer";
    QTest::newRow("hidden size not divisible by the heads")
        << "distilbert-tiny" << config([](QJsonObject& c) { c["n_heads"] = 5; }) << model
        << "hidden size 48 is not divisible by the 5 attention heads";
    QTest::newRow("unknown model_type") << "gpt2-tiny" << config([](QJsonObject& c) { c["model_type"] = "t5"; })
                                        << model << "unknown model_type \"t5\"";
    QTest::newRow("GPT-2 scale_attn_by_inverse_layer_idx")
        << "gpt2-tiny" << config([](QJsonObject& c) { c["scale_attn_by_inverse_layer_idx"] = true; }) << model
        << "'scale_attn_by_inverse_layer_idx': true is not supported";
    QTest::newRow("GPT-2 add_cross_attention")
        << "gpt2-prefixed" << config([](QJsonObject& c) { c["add_cross_attention"] = true; }) << model
        << "'add_cross_attention': true is not supported";
    QTest::newRow("BERT relative position embeddings")
        << "bert-tiny" << config([](QJsonObject& c) { c["position_embedding_type"] = "relative_key_query"; }) << model
        << "'position_embedding_type': \"relative_key_query\" is not supported";
    QTest::newRow("llama unknown rope_scaling type") << "llama-tiny" << config([](QJsonObject& c) {
        c["rope_scaling"] = QJsonObject{{"rope_type", "yarn"}, {"factor", 4.0}};
    }) << model << "'rope_scaling': rope type \"yarn\" is not supported";
    QTest::newRow("llama mlp_bias") << "llama-tiny" << config([](QJsonObject& c) { c["mlp_bias"] = true; }) << model
                                    << "'mlp_bias': true is not supported";
    QTest::newRow("llama head_dim") << "llama-tiny" << config([](QJsonObject& c) { c["head_dim"] = 16; }) << model
                                    << "'head_dim': 16 is not supported";
    QTest::newRow("llama partial_rotary_factor")
        << "llama-tiny" << config([](QJsonObject& c) { c["partial_rotary_factor"] = 0.5; }) << model
        << "'partial_rotary_factor': 0.5 is not supported";
    QTest::newRow("qwen2 use_sliding_window")
        << "qwen2-tiny" << config([](QJsonObject& c) { c["use_sliding_window"] = true; }) << model
        << "'use_sliding_window': true is not supported";
    QTest::newRow("mistral kv heads not dividing the heads")
        << "mistral-tiny" << config([](QJsonObject& c) { c["num_key_value_heads"] = 3; }) << model
        << "the 4 attention heads are not divisible into 3 key/value heads";
    QTest::newRow("gpt_neox odd rotary features")
        << "pythia-tiny" << config([](QJsonObject& c) { c["rotary_pct"] = 0.1875; }) << model
        << "rotates 3 features of each head, an odd number";
    QTest::newRow("gpt_neox add_cross_attention")
        << "pythia-tiny" << config([](QJsonObject& c) { c["add_cross_attention"] = true; }) << model
        << "'add_cross_attention': true is not supported";
    QTest::newRow("llama tensor of the wrong shape (key/value heads)")
        << "llama-tiny" << config([](QJsonObject& c) { c["num_key_value_heads"] = 4; }) << model
        << "tensor 'model.layers.0.self_attn.k_proj.weight': expected shape (32, 32), found (16, 32)";
    QTest::newRow("gpt_neox bias missing")
        << "pythia-tiny"
        << FolderEdit([](const QString& dir) { removeTensor(dir, "gpt_neox.layers.1.attention.query_key_value.bias"); })
        << model
        << "missing tensor 'layers.1.attention.query_key_value.bias' (with or without the prefix 'gpt_neox.'), "
           "expected shape (192,)";
    QTest::newRow("only pytorch_model.bin") << "gpt2-tiny" << FolderEdit([](const QString& dir) {
        QFile::remove(dir + "/model.safetensors");
        writeFile(dir + "/pytorch_model.bin", "PK\3\4 a pickle in a zip");
    }) << model << "needs model.safetensors";
    QTest::newRow("no weights") << "gpt2-tiny"
                                << FolderEdit([](const QString& dir) { QFile::remove(dir + "/model.safetensors"); })
                                << model << "no model.safetensors or model.safetensors.index.json";
    QTest::newRow("safetensors header broken")
        << "gpt2-tiny" << FolderEdit([](const QString& dir) { writeFile(dir + "/model.safetensors", "12345678{}"); })
        << model << "model.safetensors: ";
    QTest::newRow("tensor missing")
        << "gpt2-tiny" << FolderEdit([](const QString& dir) { removeTensor(dir, "h.1.mlp.c_fc.bias"); }) << model
        << "missing tensor 'h.1.mlp.c_fc.bias' (with or without the prefix 'transformer.'), expected shape (128,)";
    QTest::newRow("tensor of the wrong shape") << "bert-tiny" << FolderEdit([](const QString& dir) {
        QVERIFY(editTensors(dir, [](std::vector<StTensor>& t) {
            for (StTensor& s : t)
                if (s.name == "bert.encoder.layer.1.intermediate.dense.weight")
                    s.shape = {64, 64};  // (128, 32) in the fixture: the same bytes
        }));
    }) << model << "tensor 'bert.encoder.layer.1.intermediate.dense.weight': expected shape (128, 32), found (64, 64)";
    QTest::newRow("weight of another dtype") << "distilbert-tiny" << FolderEdit([](const QString& dir) {
        QVERIFY(editTensors(dir, [](std::vector<StTensor>& t) {
            for (StTensor& s : t)
                if (s.name == "distilbert.transformer.layer.0.ffn.lin1.bias")
                    s.dtype = "I32";
        }));
    }) << model << "tensor 'distilbert.transformer.layer.0.ffn.lin1.bias' has dtype I32";
    QTest::newRow("index names a shard that is not there") << "gpt2-prefixed" << FolderEdit([](const QString& dir) {
        QVERIFY(splitIntoShards(dir, 2));
        QFile::remove(dir + "/model-00002-of-00002.safetensors");
    }) << model << "names the shard model-00002-of-00002.safetensors, which is not in the folder";
    QTest::newRow("weight_map entry no shard holds") << "gpt2-prefixed" << FolderEdit([](const QString& dir) {
        QVERIFY(splitIntoShards(dir, 2));
        QJsonObject index = readJsonObject(dir + "/model.safetensors.index.json");
        QJsonObject map = index["weight_map"].toObject();
        map["transformer.h.9.ln_1.weight"] = "model-00001-of-00002.safetensors";
        index["weight_map"] = map;
        writeJsonObject(dir + "/model.safetensors.index.json", index);
    }) << model << "tensor 'transformer.h.9.ln_1.weight' is missing";
    QTest::newRow("shard outside the folder") << "gpt2-prefixed" << FolderEdit([](const QString& dir) {
        QVERIFY(splitIntoShards(dir, 2));
        QJsonObject index = readJsonObject(dir + "/model.safetensors.index.json");
        QJsonObject map = index["weight_map"].toObject();
        map["transformer.wte.weight"] = "../model-00001-of-00002.safetensors";
        index["weight_map"] = map;
        writeJsonObject(dir + "/model.safetensors.index.json", index);
    }) << model << "not the name of a file in the folder";
    QTest::newRow("token id outside the vocabulary")
        << "gpt2-tiny" << keep << QStringList{"--model", "{dir}", "--token-ids", "464,50257"}
        << "--token-ids: token id 50257 (position 1) is outside the vocabulary (ids 0 to 50256)";
    QTest::newRow("more tokens than n_positions")
        << "gpt2-tiny" << keep << QStringList{"--model", "{dir}", "--token-ids", idList(65)}
        << "--token-ids: 65 tokens are more than the model's 64 positions (n_positions)";
    QTest::newRow("more tokens than max_position_embeddings")
        << "bert-tiny" << keep << QStringList{"--model", "{dir}", "--token-ids", idList(65, 1000)}
        << "65 tokens are more than the model's 64 positions (max_position_embeddings)";
    QTest::newRow("zero tokens") << "gpt2-tiny" << keep << QStringList{"--model", "{dir}", "--token-ids", ""}
                                 << "--token-ids: no tokens";
    QTest::newRow("token ids not numbers")
        << "gpt2-tiny" << keep << QStringList{"--model", "{dir}", "--token-ids", "1,two"} << "--token-ids";
    QTest::newRow("no tokenizer files with --sentence")
        << "gpt2-prefixed" << keep << QStringList{"--model", "{dir}", "--sentence", "hello"} << "no tokenizer files";
    QTest::newRow("no tokenizer files for the default sentence")
        << "gpt2-prefixed" << keep << QStringList{"--model", "{dir}"} << "no tokenizer files";
    QTest::newRow("malformed vocab.json")
        << "gpt2-tiny" << FolderEdit([](const QString& dir) { writeFile(dir + "/vocab.json", "{\"a\": 0,"); })
        << QStringList{"--model", "{dir}", "--sentence", "hello"} << "vocab.json";
    QTest::newRow("merges.txt without vocab.json")
        << "gpt2-tiny" << FolderEdit([](const QString& dir) { QFile::remove(dir + "/vocab.json"); })
        << QStringList{"--model", "{dir}", "--sentence", "hello"} << "merges.txt";
    QTest::newRow("malformed tokenizer.json")
        << "distilbert-tiny" << FolderEdit([](const QString& dir) { writeFile(dir + "/tokenizer.json", "[]"); })
        << QStringList{"--model", "{dir}", "--sentence", "hello"} << "tokenizer.json";
    QTest::newRow("token ids with a sentence")
        << "gpt2-tiny" << keep << QStringList{"--model", "{dir}", "--token-ids", "1", "--sentence", "a"}
        << "--token-ids: cannot be combined with --sentence";
    QTest::newRow("token ids without a model")
        << "gpt2-tiny" << keep << QStringList{"--token-ids", "1"} << "--token-ids: only with --model";
    QTest::newRow("layer out of range") << "gpt2-tiny" << keep << (model + QStringList{"--layer", "2"})
                                        << "--layer 2: out of range, the model has layers 0 to 1";
    QTest::newRow("head out of range") << "gpt2-tiny" << keep << (model + QStringList{"--head", "4"})
                                       << "--head 4: head 4 is out of range: the model has 4 heads, 0 to 3";
    const QString weights = sourcePath("tests/fixtures/weights/mha_e8_h2.npz");
    const QString input = sourcePath("resources/examples/toy-4d-input.npy");
    for (const QStringList& option :
         {QStringList{"--weights", weights}, QStringList{"--input", input}, QStringList{"--d-model", "32"},
          QStringList{"--heads", "4"}, QStringList{"--input-dim", "32"}, QStringList{"--seed", "1"},
          QStringList{"--identity"}, QStringList{"--causal"}})
        QTest::addRow("--model with %s", qPrintable(option[0]))
            << "gpt2-tiny" << keep << (model + option)
            << QStringLiteral("--model: cannot be combined with %1").arg(option[0]);
}

void TestCliModel::contractErrors()
{
    QFETCH(QString, fixture);
    QFETCH(FolderEdit, edit);
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);

    QTemporaryDir folder;
    QVERIFY(copyFolder(modelFixture(fixture), folder.path()));
    edit(folder.path());
    QTemporaryDir out;
    for (const QString& output : {QStringLiteral("--json"), QStringLiteral("--export")}) {
        QStringList args = withFolder(arguments, folder.path());
        if (!message.contains("the window"))
            args << output << out.filePath(output == u"--json" ? "model.json" : "layer.png");
        const QString problem = refusalProblem(runProgram(args), message);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(QDir(out.path()).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 "an output file was left behind");
    }
}

void TestCliModel::windowScreenshotOfAModel_data()
{
    QTest::addColumn<QString>("tab");
    for (const char* tab : {"grid", "head", "compare", "lines", "shapes", "walkthrough"})
        QTest::newRow(tab) << QString::fromLatin1(tab);
}

// --model without --json or --export opens the window on the model (here saved by --screenshot).
void TestCliModel::windowScreenshotOfAModel()
{
    QFETCH(QString, tab);
    QTemporaryDir out;
    const QString path = out.filePath("window.png");
    const ProgramRun run =
        runProgram({"--model", modelFixture("gpt2-tiny"), "--layer", "1", "--tab", tab, "--sentence",
                    "Attention isn't all you need, but it helps.", "--screenshot", path, "--size", "1000x700"});
    QVERIFY2(run.exit_code == 0, run.err.constData());
    QCOMPARE(QImage(path).size(), QSize(1000, 700));
}

// A folder the window cannot show is the contract's one error line, and no picture.
void TestCliModel::windowRefusesABrokenModel()
{
    QTemporaryDir out;
    const QString path = out.filePath("window.png");
    const QString problem =
        refusalProblem(runProgram({"--model", out.filePath("nothing"), "--screenshot", path}), "error: --model");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(!QFile::exists(path));
    const ProgramRun layer = runProgram({"--model", modelFixture("gpt2-tiny"), "--layer", "5", "--screenshot", path});
    QVERIFY(layer.exit_code != 0);
    QVERIFY2(layer.err.startsWith("error: --layer"), layer.err.constData());
    QVERIFY(!QFile::exists(path));
}

// --model DIR --token-ids opens the window on those ids, also for a folder without a tokenizer;
// ids the model refuses are the one --token-ids line, and no picture.
void TestCliModel::windowOnTokenIds()
{
    QTemporaryDir out;
    const QString path = out.filePath("window.png");
    const ProgramRun run = runProgram({"--model", modelFixture("llama-tiny"), "--token-ids", "1,15,77,3", "--tab",
                                       "lines", "--screenshot", path, "--size", "1000x700"});
    QVERIFY2(run.exit_code == 0, run.err.constData());
    QCOMPARE(QImage(path).size(), QSize(1000, 700));
    QVERIFY(QFile::remove(path));
    const ProgramRun outside =
        runProgram({"--model", modelFixture("gpt2-tiny"), "--token-ids", "464,50257", "--screenshot", path});
    QVERIFY(outside.exit_code != 0);
    QCOMPARE(QString::fromUtf8(outside.err),
             QStringLiteral("error: --token-ids: token id 50257 (position 1) is outside the vocabulary (ids 0 to "
                            "50256)\n"));
    QVERIFY(!QFile::exists(path));

    // Text, given or the default sentence, needs the folder's tokenizer: the same line as --json's.
    const QString folder = modelFixture("llama-tiny");
    const QString no_tokenizer = QStringLiteral("error: --model %1: no tokenizer files").arg(folder);
    for (const QStringList& input : {QStringList{"--sentence", "The cat sat"}, QStringList{}}) {
        const QString text =
            refusalProblem(runProgram(QStringList{"--model", folder, "--screenshot", path} + input), no_tokenizer);
        QVERIFY2(text.isEmpty(), qPrintable(text));
        QVERIFY(!QFile::exists(path));
    }
}

// Tokenizer files that cannot be read are not needed with --token-ids (the contract's "Not
// needed with --token-ids"): the ids run, each spelled by its id in decimal, for --json and for
// the window alike; text is the one `error:` line naming the file, there and in the window.
void TestCliModel::brokenTokenizerTakesTokenIds()
{
    QTemporaryDir folder;
    QVERIFY(copyFolder(modelFixture("gpt2-tiny"), folder.path()));
    writeFile(folder.filePath("vocab.json"), "{\"a\": 0,");
    QTemporaryDir out;
    const QString json = out.filePath("model.json");
    const ProgramRun ids = runProgram({"--model", folder.path(), "--token-ids", "464,3797", "--json", json});
    QVERIFY2(ids.exit_code == 0, ids.err.constData());
    QVERIFY(ids.err.isEmpty());
    QCOMPARE(readJsonObject(json)["tokens"].toArray(), (QJsonArray{"464", "3797"}));

    const QString picture = out.filePath("window.png");
    const ProgramRun window = runProgram({"--model", folder.path(), "--token-ids", "464,3797", "--tab", "lines",
                                          "--screenshot", picture, "--size", "1000x700"});
    QVERIFY2(window.exit_code == 0, window.err.constData());
    QCOMPARE(QImage(picture).size(), QSize(1000, 700));
    QVERIFY(QFile::remove(picture));

    const QString refused = QStringLiteral("error: --model %1: vocab.json").arg(folder.path());
    for (const QStringList& output : {QStringList{"--json", json}, QStringList{"--screenshot", picture}}) {
        QFile::remove(json);
        const QString problem =
            refusalProblem(runProgram(QStringList{"--model", folder.path(), "--sentence", "hello"} + output), refused);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(!QFile::exists(json) && !QFile::exists(picture));
    }
}

REGISTER_TEST_SUITE(TestCliModel, QCoreApplication)
#include "test_cli_model.moc"
