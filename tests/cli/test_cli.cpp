// The command-line contract (docs/command-line.md), driven through the real executable
// as other tools drive it: JSON shape and identities, and the one-line error of every bad input.
#include "core/attention/AttentionEngine.h"
#include "core/io/JsonWriter.h"
#include "core/io/NpyReader.h"
#include "core/weights/WeightFile.h"

#include "tests/support/Float32Bounds.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace attn;
using namespace attn::testing;

namespace {

QJsonObject runJson(const QStringList& arguments)
{
    const ProgramRun run = runProgram(arguments + QStringList{"--json", "-"});
    if (run.exit_code != 0)
        qWarning() << run.err;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << error.errorString();
    return doc.object();
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void defaultJsonFollowsTheContract()
    {
        const QJsonObject json = runJson({"--sentence", "The cat sat on the rug"});
        const QJsonArray tokens = json["tokens"].toArray();
        QCOMPARE(tokens.size(), 6);
        QCOMPARE(tokens[5].toString(), QStringLiteral("rug"));
        const QJsonObject config = json["config"].toObject();
        QCOMPARE(config["d_model"].toInt(), 512);
        QCOMPARE(config["num_heads"].toInt(), 8);
        QCOMPARE(config["head_dim"].toInt(), 64);
        QCOMPARE(config["input_dim"].toInt(), 512);
        QCOMPARE(config["causal"].toBool(), false);
        QCOMPARE(config["scale"].toDouble(), 8.0);
        const QJsonObject shapes = json["shapes"].toObject();
        QCOMPARE(shapes["input"].toArray(), (QJsonArray{6, 512}));
        QCOMPARE(shapes["q"].toArray(), (QJsonArray{8, 6, 64}));
        QCOMPARE(shapes["scores"].toArray(), (QJsonArray{8, 6, 6}));
        QCOMPARE(shapes["concat"].toArray(), (QJsonArray{6, 512}));
        QCOMPARE(shapes["output"].toArray(), (QJsonArray{6, 512}));
        const QJsonArray attention = json["attention"].toArray();
        QCOMPARE(attention.size(), 8);
        for (const QJsonValue& head : attention) {
            QCOMPARE(head.toArray().size(), 6);
            for (const QJsonValue& row : head.toArray()) {
                double sum = 0;
                for (const QJsonValue& w : row.toArray())
                    sum += w.toDouble();
                QCOMPARE(row.toArray().size(), 6);
                // Float32Bounds.h: a float32 softmax row of 6 keys, and the JSON texts within u of each.
                QVERIFY(std::abs(sum - 1.0) <= rowSumBound(6) + 2 * kUnitRoundoff);
            }
        }
        QCOMPARE(json["output"].toArray().size(), 6);
        QCOMPARE(json["output"].toArray()[0].toArray().size(), 512);
    }

    void defaultSentenceAndOptions()
    {
        const QJsonObject json =
            runJson({"--causal", "--scale", "none", "--d-model", "16", "--heads", "4", "--input-dim", "6"});
        QCOMPARE(json["tokens"].toArray().size(), 13);  // "The cat sat on the rug and it was dry-cleaned."
        QCOMPARE(json["config"]["scale"].toDouble(), 1.0);
        QCOMPARE(json["config"]["input_dim"].toInt(), 6);
        QCOMPARE(json["config"]["causal"].toBool(), true);
        const QJsonArray head = json["attention"].toArray()[2].toArray();
        for (int i = 0; i < head.size(); ++i)
            for (int j = i + 1; j < head.size(); ++j)
                QCOMPARE(head[i].toArray()[j].toDouble(), 0.0);
    }

    void toyExampleFromFiles()
    {
        const QString examples = sourcePath("resources/examples/");
        const QJsonObject json = runJson({"--weights", examples + "toy-4d.json", "--input",
                                          examples + "toy-4d-input.npy", "--tokens", "x0,x1,x2", "--scale", "none"});
        QCOMPARE(json["tokens"].toArray(), (QJsonArray{"x0", "x1", "x2"}));
        QCOMPARE(json["config"]["num_heads"].toInt(), 1);
        QCOMPARE(json["config"]["input_dim"].toInt(), 4);
        const QJsonArray row0 = json["attention"][0][0].toArray();
        const QJsonArray out0 = json["output"][0].toArray();
        const double weights0[] = {0.06337894, 0.46831053, 0.46831053};
        const double output0[] = {1.93662106, 6.68310531, 1.59506841};
        // The worked example's float64 values (to 9 digits: within u) against one float32 pass's
        // bounds (Float32Bounds.h), computed here from the same files (the JSON weights rounded to
        // float32), plus the shortest float32 text of the program's JSON (within u).
        const Result<LoadedWeights> loaded = WeightFile::load(examples + "toy-4d.json");
        const Result<Matrix> input = NpyReader::readMatrixFile(examples + "toy-4d-input.npy");
        QVERIFY(loaded && input);
        AttentionOptions options;
        options.scale = ScaleSetting{ScaleSetting::Mode::None, 1.0};
        const AttentionTrace trace = AttentionEngine::forward(*input, loaded->weights, options).value();
        const std::vector<DoubleMatrix> larger = {trace.probabilities[0].cast<double>()};
        const DoubleMatrix no_difference = DoubleMatrix::Zero(input->rows(), input->cols());
        const double weight_error = kUnitRoundoff / (1 - kUnitRoundoff);
        const AttentionLayerBounds bounds = attentionLayerBounds(
            loaded->weights, {*input, no_difference, trace.q, trace.k, larger, nullptr, nullptr, weight_error}, {}, 1.0,
            1);
        const DoubleMatrix output_bound =
            attentionOutputBounds(loaded->weights, bounds, larger, trace.v, trace.concat, weight_error, 1).output;
        const double text = 2 * kUnitRoundoff;  // the 9 digits and the program's text
        for (int j = 0; j < 3; ++j) {
            QVERIFY(std::abs(row0[j].toDouble() - weights0[j]) <= bounds.probabilities[0](0, j) + text * weights0[j]);
            QVERIFY(std::abs(out0[j].toDouble() - output0[j]) <= output_bound(0, j) + text * output0[j]);
        }
    }

    void jsonToAFileIsWrittenWhole()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("out.json");
        const ProgramRun run = runProgram({"--d-model", "8", "--heads", "2", "--json", path});
        QCOMPARE(run.exit_code, 0);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(QJsonDocument::fromJson(file.readAll()).isObject());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"out.json"});
    }

    void badInputIsOneErrorLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::addRow("heads do not divide") << QStringList{"--heads", "7"} << "divisible";
        QTest::addRow("zero heads") << QStringList{"--heads", "0"} << "--heads";
        QTest::addRow("negative d-model") << QStringList{"--d-model", "-4"} << "--d-model";
        QTest::addRow("text for a number") << QStringList{"--d-model", "big"} << "--d-model";
        QTest::addRow("negative seed") << QStringList{"--seed", "-1"} << "--seed";
        QTest::addRow("zero scale") << QStringList{"--scale", "0"} << "--scale";
        QTest::addRow("nan scale") << QStringList{"--scale", "nan"} << "--scale";
        QTest::addRow("empty sentence") << QStringList{"--sentence", ""} << "--sentence";
        QTest::addRow("blank sentence") << QStringList{"--sentence", "  \t "} << "--sentence";
        QTest::addRow("unknown option") << QStringList{"--frobnicate"} << "frobnicate";
        QTest::addRow("missing weights file")
            << QStringList{"--weights", "/no/such/file.safetensors"} << "/no/such/file.safetensors";
        QTest::addRow("missing input file") << QStringList{"--input", "/no/such/x.npy"} << "/no/such/x.npy";
        QTest::addRow("input is not npy")
            << QStringList{"--input", sourcePath("resources/examples/toy-4d.json")} << "magic";
        QTest::addRow("too few token labels")
            << QStringList{"--input",   sourcePath("resources/examples/toy-4d-input.npy"),
                           "--tokens",  "a,b",
                           "--d-model", "4",
                           "--heads",   "1"}
            << "labels";
        QTest::addRow("input width against weights")
            << QStringList{"--input", sourcePath("resources/examples/toy-4d-input.npy"), "--weights",
                           sourcePath("tests/fixtures/weights/mha_e8_h2.npz")}
            << "columns";
        QTest::addRow("weights not a weight file") << QStringList{"--weights", sourcePath("README.md")} << "README.md";
        QTest::addRow("layer out of range")
            << QStringList{"--weights", sourcePath("tests/fixtures/weights/mha_e8_h2.npz"), "--layer", "3"} << "layer";
        QTest::addRow("tokens without input") << QStringList{"--tokens", "a,b"} << "--tokens";
        QTest::addRow("head out of range")
            << QStringList{"--d-model", "8", "--heads", "2", "--head", "2"} << "--head 2";
        QTest::addRow("layer without file") << QStringList{"--layer", "1"} << "--layer";
        QTest::addRow("unknown view") << QStringList{"--view", "pie"} << "--view";
        QTest::addRow("bad size") << QStringList{"--size", "12by4"} << "--size";
        QTest::addRow("huge size") << QStringList{"--size", "100000x10"} << "--size";
        QTest::addRow("bad compare") << QStringList{"--compare", "1"} << "--compare";
        QTest::addRow("absurd model") << QStringList{"--d-model", "60000", "--input-dim", "60000", "--heads", "1"}
                                      << "fit";
        QTest::addRow("json into missing directory")
            << QStringList{"--json", "/no/such/dir/out.json"} << "does not exist";
        QTest::addRow("export with unknown extension") << QStringList{"--export", "out.bmp"} << "extension";
        QTest::addRow("export through a file")
            << QStringList{"--export", programPath() + "/out.png"} << "not a directory";
    }
    void badInputIsOneErrorLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString out = dir.filePath("result.json");
        QStringList withOutput = arguments;
        if (!arguments.contains("--json") && !arguments.contains("--export"))
            withOutput << "--json" << out;
        const QString problem = refusalProblem(runProgram(withOutput), expected);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(QDir(dir.path()).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 "an output file was left behind");
    }

    void helpAndVersion()
    {
        const ProgramRun help = runProgram({"--help"});
        QCOMPARE(help.exit_code, 0);
        QVERIFY(help.out.contains("--sentence"));
        QVERIFY(help.out.contains("--export"));
        // Every view --view takes is listed, as the name it is typed with.
        for (const char* view :
             {"grid", "head", "compare", "lines", "shapes", "model:", "model-shapes", "rollout", "qk"})
            QVERIFY2(help.out.contains(view), view);
        const ProgramRun version = runProgram({"--version"});
        QCOMPARE(version.exit_code, 0);
        QVERIFY(version.out.startsWith("attention-lab "));
    }

    // The window asked for where there is no display: one error line saying what works instead,
    // not Qt's abort.
    void noDisplayForTheWindowIsOneErrorLine()
    {
        const ProgramRun run = runProgram({"--sentence", "the cat sat"});
        QCOMPARE(run.exit_code, 1);
        const QString err = QString::fromUtf8(run.err);
        QVERIFY2(err.startsWith("error: no display"), qPrintable(err));
        QCOMPARE(err.count('\n'), 1);
        QVERIFY(err.contains("--export"));

        // A display named but out of reach: likewise one line, for the window and for a picture.
        for (const QStringList& arguments : {QStringList{"--sentence", "the cat sat"},
                                             QStringList{"--export", QDir::temp().filePath("unreachable.png")}}) {
            const ProgramRun unreachable = runProgram(arguments, {{"DISPLAY", ":97"}});
            QCOMPARE(unreachable.exit_code, 1);
            const QString line = QString::fromUtf8(unreachable.err);
            QVERIFY2(line.startsWith("error: ") && line.count('\n') == 1, qPrintable(line));
        }
        QVERIFY(!QFile::exists(QDir::temp().filePath("unreachable.png")));
    }

    void unicodeTokensRoundTripAsValidUtf8()
    {
        const QString sentence = QString::fromUtf8("naïve 猫 👋🏽 שלום \"quoted\"\\");
        const QJsonObject json = runJson({"--d-model", "8", "--heads", "2", "--sentence", sentence});
        QStringList tokens;
        for (const QJsonValue& t : json["tokens"].toArray())
            tokens.append(t.toString());
        QCOMPARE(tokens,
                 (QStringList{QString::fromUtf8("naïve"), QString::fromUtf8("猫"), QString::fromUtf8("👋🏽"),
                              QString::fromUtf8("שלום"), "\"", "quoted", "\"", "\\"}));
    }

    void jsonWriterEscapesAndReplacesBrokenText()
    {
        attn::JsonWriter json(false);
        json.beginObject();
        json.key("a").value(QString(QChar(0xD800)) + "x\n\x01");  // a lone surrogate and control characters
        json.key("n").value(std::numeric_limits<float>::quiet_NaN());
        json.key("f").value(0.1f);
        json.endObject();
        const QByteArray out = json.data();
        QVERIFY(QString::fromUtf8(out).toUtf8() == out);  // valid UTF-8
        // QString::toUtf8 writes '?' for an unpaired surrogate; invalid UTF-8 on the command line
        // already became U+FFFD when argv was decoded.
        QCOMPARE(out, QByteArray("{\"a\":\"?x\\n\\u0001\",\"n\":null,\"f\":0.1}"));
    }
};

REGISTER_TEST_SUITE(TestCli, QCoreApplication)
#include "test_cli.moc"
