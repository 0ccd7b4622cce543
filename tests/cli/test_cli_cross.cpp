// Cross-attention and key padding on the command line (docs/command-line.md, "Cross-attention
// and padding"), through the real executable: --kv-sentence / --kv-input, --pad-keys, the JSON
// they produce, the PyTorch fixtures reproduced end to end, the pictures, and every refusal.
#include "core/attention/AttentionEngine.h"
#include "core/io/NpyReader.h"
#include "core/weights/WeightFile.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/ProgramRun.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attn;
using namespace attn::testing;

namespace {

const QString kFixtures = fixturesPath("attention/");

QJsonObject runJson(const QStringList& arguments)
{
    const ProgramRun run = runProgram(arguments + QStringList{"--json", "-"});
    if (run.exit_code != 0)
        qWarning() << run.err;
    return QJsonDocument::fromJson(run.out).object();
}

QJsonObject readJsonFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

MatrixD matrixOf(const QJsonArray& rows)
{
    MatrixD m(rows.size(), rows.isEmpty() ? 0 : rows[0].toArray().size());
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            m(r, c) = rows[r][c].toDouble();
    return m;
}

// How far the program's attention (per head) and output may lie from a fixture case's float64
// reference: the float32 bounds of one pass (tests/support/Float32Bounds.h, for any order of the
// sums, so for the program's run too), computed here by running the engine on the case's files,
// plus the JSON's shortest float32 text, which reads back within u of the float32 value.
struct ProgramBounds {
    std::vector<DoubleMatrix> attention;
    DoubleMatrix output;
    QString error;
};
ProgramBounds programBounds(const QString& name, const QJsonObject& expected, const QJsonObject& json)
{
    const QString dir = kFixtures + name + QLatin1Char('/');
    WeightFileOptions weight_options;
    weight_options.layer = expected["layer"].toInt();
    weight_options.num_heads = expected["heads_option"].toInt();
    const Result<LoadedWeights> loaded = WeightFile::load(dir + expected["weights_file"].toString(), weight_options);
    const Result<Matrix> input = NpyReader::readMatrixFile(dir + expected["input"].toString());
    const Result<Matrix> kv_input =
        expected.contains("kv_input") ? NpyReader::readMatrixFile(dir + expected["kv_input"].toString()) : input;
    if (!loaded || !input || !kv_input)
        return {{}, {}, QStringLiteral("cannot read the case's files")};
    AttentionOptions options;
    options.causal = expected["causal"].toBool();
    options.detail = TraceDetail::Probabilities;
    for (Eigen::Index j = 0; j < kv_input->rows(); ++j)
        options.key_padding.push_back(false);
    for (const QJsonValue key : expected["pad_keys"].toArray())
        options.key_padding[size_t(key.toInt())] = true;
    const AttentionWeights& w = loaded->weights;
    const Result<AttentionTrace> trace = AttentionEngine::forward(*input, *kv_input, *kv_input, w, options);
    if (!trace)
        return {{}, {}, trace.error()};
    const QJsonArray reference = expected["attention"].toArray(), program = json["attention"].toArray();
    std::vector<DoubleMatrix> larger;
    for (int h = 0; h < w.num_heads; ++h)
        larger.push_back(matrixOf(reference[h].toArray())
                             .cwiseMax(matrixOf(program[h].toArray()))
                             .cwiseMax(trace->probabilities[size_t(h)].cast<double>()));
    const QString dtype = expected["dtype"].toString();
    const double weight_error =
        dtype == QLatin1String("float64") || dtype == QLatin1String("json") ? kUnitRoundoff / (1 - kUnitRoundoff) : 0.0;
    const DoubleMatrix no_difference = DoubleMatrix::Zero(input->rows(), input->cols());
    const DoubleMatrix no_key_difference = DoubleMatrix::Zero(kv_input->rows(), kv_input->cols());
    const ScaleSetting scale = *ScaleSetting::parse(expected["scale"].toString());
    const AttentionLayerBounds bounds = attentionLayerBounds(
        w, {*input, no_difference, trace->q, trace->k, larger, &*kv_input, &no_key_difference, weight_error}, {},
        1.0 / scale.divisor(w.headDim()), 1);
    const AttentionOutputBounds output =
        attentionOutputBounds(w, bounds, larger, trace->v, trace->concat, weight_error, 1);
    const double text = kUnitRoundoff / (1 - kUnitRoundoff);
    ProgramBounds result;
    for (int h = 0; h < w.num_heads; ++h)
        result.attention.push_back(bounds.probabilities[size_t(h)] + text * larger[size_t(h)]);
    result.output = output.output + text * (trace->output.cast<double>().cwiseAbs() + 2 * output.output);
    return result;
}

// The arguments that reproduce a fixture case of tests/fixtures/attention/ on the command line.
QStringList fixtureArguments(const QString& name, const QJsonObject& expected)
{
    const QString dir = kFixtures + name + QLatin1Char('/');
    QStringList arguments{"--weights", dir + expected["weights_file"].toString(), "--input",
                          dir + expected["input"].toString()};
    if (expected.contains("kv_input"))
        arguments << "--kv-input" << dir + expected["kv_input"].toString();
    if (expected["causal"].toBool())
        arguments << "--causal";
    if (expected.contains("pad_keys")) {
        QStringList keys;
        for (const QJsonValue key : expected["pad_keys"].toArray())
            keys << QString::number(key.toInt());
        arguments << "--pad-keys" << keys.join(u',');
    }
    return arguments;
}

}  // namespace

class TestCliCross : public QObject {
    Q_OBJECT

private slots:
    void crossJsonFollowsTheContract()
    {
        const QJsonObject json = runJson(
            {"--d-model", "8", "--heads", "2", "--sentence", "the cat sat", "--kv-sentence", "le chat est assis ici"});
        QCOMPARE(json["tokens"].toArray(), (QJsonArray{"the", "cat", "sat"}));
        QCOMPARE(json["kv_tokens"].toArray(), (QJsonArray{"le", "chat", "est", "assis", "ici"}));
        const QJsonObject shapes = json["shapes"].toObject();
        QCOMPARE(shapes["input"].toArray(), (QJsonArray{3, 8}));
        QCOMPARE(shapes["kv_input"].toArray(), (QJsonArray{5, 8}));
        QCOMPARE(shapes["q"].toArray(), (QJsonArray{2, 3, 4}));
        QCOMPARE(shapes["scores"].toArray(), (QJsonArray{2, 3, 5}));
        QCOMPARE(shapes["concat"].toArray(), (QJsonArray{3, 8}));
        QCOMPARE(shapes["output"].toArray(), (QJsonArray{3, 8}));
        const QJsonArray attention = json["attention"].toArray();  // (h, T_q, T_kv)
        QCOMPARE(attention.size(), 2);
        for (const QJsonValue head : attention) {
            QCOMPARE(head.toArray().size(), 3);
            for (const QJsonValue row : head.toArray()) {
                QCOMPARE(row.toArray().size(), 5);
                double sum = 0.0;
                for (const QJsonValue w : row.toArray())
                    sum += w.toDouble();
                // Float32Bounds.h: a float32 softmax of 5 terms, and the JSON texts within u of each.
                QVERIFY(std::abs(sum - 1.0) <= rowSumBound(5) + 2 * kUnitRoundoff);
            }
        }
        QCOMPARE(json["output"].toArray().size(), 3);
        QVERIFY(!json.contains("empty_rows"));  // no padding asked for
    }

    // Self-attention without a second input keeps the v1 document: no kv_tokens, square scores.
    void selfAttentionHasNoKvTokens()
    {
        const QJsonObject json = runJson({"--d-model", "8", "--heads", "2", "--sentence", "a b c"});
        QVERIFY(!json.contains("kv_tokens"));
        QVERIFY(!json["shapes"].toObject().contains("kv_input"));
        QCOMPARE(json["shapes"]["scores"].toArray(), (QJsonArray{2, 3, 3}));
    }

    void paddedKeysAreExactlyZero()
    {
        const QJsonObject json =
            runJson({"--d-model", "8", "--heads", "2", "--sentence", "one two three four five", "--pad-keys", "1, 3"});
        QCOMPARE(json["config"]["pad_keys"].toArray(), (QJsonArray{1, 3}));
        QCOMPARE(json["empty_rows"].toArray(), QJsonArray{});
        for (const QJsonValue head : json["attention"].toArray())
            for (const QJsonValue row : head.toArray()) {
                QCOMPARE(row[1].toDouble(), 0.0);  // exact: JSON writes what the engine holds
                QCOMPARE(row[3].toDouble(), 0.0);
                QVERIFY(row[0].toDouble() > 0.0);
            }
    }

    // Every key padded: every query sees nothing, a row of zeros each, and empty_rows names them.
    void everyKeyPaddedGivesEmptyRows()
    {
        const QJsonObject json = runJson(
            {"--d-model", "8", "--heads", "2", "--sentence", "a b c", "--kv-sentence", "x y", "--pad-keys", "0,1"});
        QCOMPARE(json["empty_rows"].toArray(), (QJsonArray{0, 1, 2}));
        for (const QJsonValue head : json["attention"].toArray())
            for (const QJsonValue row : head.toArray())
                QCOMPARE(row.toArray(), (QJsonArray{0.0, 0.0}));
    }

    // The PyTorch fixtures of tests/fixtures/attention/ with a second input or padding, computed
    // by the executable from the same files: the JSON agrees with torch's float64 numbers.
    void matchesTorchFixtures_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"mha_cross", "mha_cross_padded", "mha_padded_causal", "mha_all_padded"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void matchesTorchFixtures()
    {
        QFETCH(QString, name);
        const QJsonObject expected = readJsonFile(kFixtures + name + "/expected.json");
        QVERIFY(!expected.isEmpty());
        const QJsonObject json = runJson(fixtureArguments(name, expected));
        QVERIFY(!json.isEmpty());
        const ProgramBounds bounds = programBounds(name, expected, json);
        QVERIFY2(bounds.error.isEmpty(), qPrintable(bounds.error));
        const QJsonArray heads = json["attention"].toArray();
        const QJsonArray expected_heads = expected["attention"].toArray();
        QCOMPARE(heads.size(), expected_heads.size());
        for (qsizetype h = 0; h < heads.size(); ++h) {
            const QJsonArray rows = heads[h].toArray();
            const QJsonArray expected_rows = expected_heads[h].toArray();
            QCOMPARE(rows.size(), expected_rows.size());
            for (qsizetype i = 0; i < rows.size(); ++i) {
                QCOMPARE(rows[i].toArray().size(), expected_rows[i].toArray().size());
                for (qsizetype j = 0; j < rows[i].toArray().size(); ++j)
                    QVERIFY2(std::abs(rows[i][j].toDouble() - expected_rows[i][j].toDouble()) <=
                                 bounds.attention[size_t(h)](i, j),
                             qPrintable(QStringLiteral("head %1 [%2][%3]").arg(h).arg(i).arg(j)));
            }
        }
        const QJsonArray output = json["output"].toArray();
        const QJsonArray expected_output = expected["output"].toArray();
        QCOMPARE(output.size(), expected_output.size());
        for (qsizetype i = 0; i < output.size(); ++i)
            for (qsizetype j = 0; j < output[i].toArray().size(); ++j)
                QVERIFY(std::abs(output[i][j].toDouble() - expected_output[i][j].toDouble()) <= bounds.output(i, j));
        if (expected.contains("empty_rows"))
            QCOMPARE(json["empty_rows"].toArray(), expected["empty_rows"].toArray());
        if (expected.contains("kv_input"))
            QCOMPARE(json["shapes"]["scores"].toArray()[2].toInt(), expected["dims"]["kv_len"].toInt());
    }

    // The pictures draw T_q x T_kv: query labels and key labels both appear, for every view.
    void exportsDrawBothTokenLists_data()
    {
        QTest::addColumn<QString>("view");
        for (const char* view : {"grid", "head", "lines", "shapes", "compare"})
            QTest::newRow(view) << QString::fromLatin1(view);
    }
    void exportsDrawBothTokenLists()
    {
        QFETCH(QString, view);
        QTemporaryDir dir;
        const QString svg = dir.filePath("cross.svg");
        const ProgramRun run =
            runProgram({"--d-model", "8", "--heads", "2", "--sentence", "querya queryb", "--kv-sentence",
                        "keyalpha keybeta keygamma", "--pad-keys", "1", "--export", svg, "--view", view});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QByteArray text = readAll(svg);
        QVERIFY(text.startsWith("<?xml"));
        if (view == u"shapes") {
            QVERIFY(text.contains("T_kv"));
            QVERIFY(text.contains("(1, 2, 2, 3)"));  // the scores: (B, h, T_q, T_kv)
        } else {
            QVERIFY(text.contains("querya"));
            QVERIFY(text.contains("keygamma"));
        }
    }

    void badInputIsOneErrorLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QString toy_input = sourcePath("resources/examples/toy-4d-input.npy");
        const QStringList small{"--d-model", "8", "--heads", "2"};
        QTest::addRow("pad-keys not a number") << small + QStringList{"--pad-keys", "x"} << "--pad-keys";
        QTest::addRow("pad-keys negative") << small + QStringList{"--pad-keys", "-1"} << "--pad-keys";
        QTest::addRow("pad-keys fraction") << small + QStringList{"--pad-keys", "1.5"} << "--pad-keys";
        QTest::addRow("pad-keys empty entry") << small + QStringList{"--pad-keys", "1,,2"} << "--pad-keys";
        QTest::addRow("pad-keys empty") << small + QStringList{"--pad-keys", ""} << "--pad-keys";
        QTest::addRow("pad-keys huge") << small + QStringList{"--pad-keys", "99999999999"} << "--pad-keys";
        QTest::addRow("pad-keys past the sentence")
            << small + QStringList{"--sentence", "a b c", "--pad-keys", "3"} << "--pad-keys: key position 3";
        QTest::addRow("pad-keys past the second input")
            << small + QStringList{"--sentence", "a b c d", "--kv-sentence", "x y", "--pad-keys", "2"}
            << "outside the 2 keys";
        QTest::addRow("causal with kv-sentence")
            << small + QStringList{"--causal", "--kv-sentence", "x y"} << "--causal";
        QTest::addRow("causal with kv-input")
            << QStringList{"--input", toy_input, "--kv-input", toy_input, "--causal"} << "--kv-input";
        QTest::addRow("two second inputs")
            << small + QStringList{"--kv-sentence", "x", "--kv-input", toy_input} << "--kv-sentence";
        QTest::addRow("empty kv-sentence") << small + QStringList{"--kv-sentence", ""} << "--kv-sentence";
        QTest::addRow("blank kv-sentence") << small + QStringList{"--kv-sentence", " \t"} << "--kv-sentence";
        QTest::addRow("missing kv-input") << small + QStringList{"--kv-input", "/no/such/kv.npy"} << "/no/such/kv.npy";
        QTest::addRow("kv-input not npy")
            << small + QStringList{"--kv-input", sourcePath("resources/examples/toy-4d.json")} << "--kv-input";
        QTest::addRow("kv-input width against weights")
            << small + QStringList{"--kv-input", toy_input} << "columns, the weights expect 8";
        QTest::addRow("pad-keys out of range with export")
            << small + QStringList{"--pad-keys", "40", "--export", "PLACEHOLDER.png"} << "--pad-keys";
    }
    void badInputIsOneErrorLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QStringList with_output = arguments;
        with_output.replaceInStrings(QStringLiteral("PLACEHOLDER"), dir.filePath("picture"));
        if (!arguments.contains("--export"))
            with_output << "--json" << dir.filePath("result.json");
        const QString problem = refusalProblem(runProgram(with_output), expected);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(QDir(dir.path()).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 "an output file was left behind");
    }

    void screenshotRefusesKvInput()
    {
        QTemporaryDir dir;
        const ProgramRun run = runProgram({"--kv-input", sourcePath("resources/examples/toy-4d-input.npy"),
                                           "--screenshot", dir.filePath("window.png")});
        QVERIFY(run.exit_code > 0);
        QVERIFY2(run.err.startsWith("error: --screenshot"), run.err.constData());
        QVERIFY(QDir(dir.path()).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden));
    }

    void helpListsTheNewOptions()
    {
        const ProgramRun help = runProgram({"--help"});
        QCOMPARE(help.exit_code, 0);
        for (const char* option : {"--kv-sentence", "--kv-input", "--pad-keys"})
            QVERIFY2(help.out.contains(option), option);
    }
};

REGISTER_TEST_SUITE(TestCliCross, QCoreApplication)
#include "test_cli_cross.moc"
