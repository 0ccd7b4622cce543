// The engine against PyTorch: every case folder in tests/fixtures/attention/ (expected.json and
// input.npy; the weight files in weights/) was produced by tests/fixtures/attention/make_fixtures.py (torch.nn.MultiheadAttention's forward, or the same math written
// out in torch for the schemes it cannot express, evaluated in float64 from exactly the values the
// weight file stores). Each case loads its weight file through attn::WeightFile, runs
// attn::AttentionEngine::forward on the case's input and compares every attention weight and
// output value. Cross-attention cases also hold kv_input.npy (the keys' and values' rows) and
// padding cases the padded key positions and the queries left with no key (torch gives NaN there,
// the contract and the fixture a row of zeros). Regenerate the fixtures with
// cd tests/fixtures/attention && /usr/bin/python3 make_fixtures.py.

#include "core/attention/AttentionEngine.h"
#include "core/attention/AttentionOptions.h"
#include "core/base/Tensor.h"
#include "core/io/NpyReader.h"
#include "core/weights/WeightFile.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace attn;
using namespace attn::testing;

namespace {

// Engine (float32) against the float64 reference, which is exact to ~1e-15 for the stored
// weights: every probability and output value within one float32 pass's error bounds, derived
// from the case's own numbers for any order of the sums (tests/support/Float32Bounds.h), the
// weights' rounding to float32 included for F64 and JSON files. Any real bug (a transposed
// matrix, a wrong head split, a missing bias, the wrong layer) moves values by 1e-2 or more.

// Cases the generator writes; a missing one (or a missing directory) must fail, not pass with
// zero rows.
const QStringList kExpectedCases = {
    QStringLiteral("example_toy-4d"),
    QStringLiteral("gpt2_f16"),
    QStringLiteral("gpt2_layer0"),
    QStringLiteral("gpt2_layer1"),
    QStringLiteral("gpt2_layer1_heads4"),
    QStringLiteral("llama_f64_npz"),
    QStringLiteral("mha_all_padded"),
    QStringLiteral("mha_bf16"),
    QStringLiteral("mha_cross"),
    QStringLiteral("mha_cross_padded"),
    QStringLiteral("mha_f32"),
    QStringLiteral("mha_f32_causal"),
    QStringLiteral("mha_f32_scale_none"),
    QStringLiteral("mha_nobias_npz"),
    QStringLiteral("mha_padded_causal"),
    QStringLiteral("mha_separate_qkv"),
    QStringLiteral("qkv_proj_prefix"),
    QStringLiteral("toy-3x4-concat"),
    QStringLiteral("toy-4d"),
};

QString fixturesDir()
{
    return fixturesPath("attention");
}

struct Fixture {
    QString weights_path;
    QString input_path;
    QString scheme;
    int num_heads = 0;
    int heads_option = 0;  // passed to WeightFile::load; 0 = take num_heads from the file
    int layer = 0;
    int layer_count = 1;
    int d_model = 0;
    bool causal = false;
    ScaleSetting scale;
    bool weights_rounded = false;    // F64 or JSON weights: the engine's are their float32 roundings
    Matrix input;                    // (seq_len, input_dim): the float32 values of the .npy
    QString kv_input_path;           // cross-attention cases only
    Matrix kv_input;                 // (kv_len, input_dim), or empty: self-attention
    std::vector<bool> key_padding;   // one flag per key, or empty: no padding
    std::vector<int> empty_rows;     // queries that see no key
    std::vector<MatrixD> attention;  // num_heads x (seq_len, kv_len)
    MatrixD output;                  // (seq_len, output_dim)

    const Matrix& keyInput() const { return kv_input.size() > 0 ? kv_input : input; }
    Eigen::Index keyLength() const { return keyInput().rows(); }
    bool isEmptyRow(Eigen::Index query) const
    {
        return std::find(empty_rows.begin(), empty_rows.end(), int(query)) != empty_rows.end();
    }
    AttentionOptions options() const
    {
        AttentionOptions o;
        o.causal = causal;
        o.scale = scale;
        o.key_padding = key_padding;
        return o;
    }
};

// A rectangular JSON array of arrays of numbers.
Result<MatrixD> readMatrix(const QJsonValue& value, const QString& field)
{
    const QJsonArray rows = value.toArray();
    if (!value.isArray() || rows.isEmpty() || !rows.first().isArray())
        return Error{QStringLiteral("'%1' is not a non-empty array of rows").arg(field)};
    const qsizetype cols = rows.first().toArray().size();
    MatrixD m(rows.size(), cols);
    for (qsizetype r = 0; r < rows.size(); ++r) {
        const QJsonArray row = rows[r].toArray();
        if (row.size() != cols)
            return Error{
                QStringLiteral("'%1' row %2 has %3 values, expected %4").arg(field).arg(r).arg(row.size()).arg(cols)};
        for (qsizetype c = 0; c < cols; ++c) {
            if (!row[c].isDouble())
                return Error{QStringLiteral("'%1'[%2][%3] is not a number").arg(field).arg(r).arg(c)};
            m(r, c) = row[c].toDouble();
        }
    }
    return m;
}

Result<Fixture> readFixture(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("%1: %2").arg(path, file.errorString())};
    QJsonParseError parseError;
    const QJsonObject doc = QJsonDocument::fromJson(file.readAll(), &parseError).object();
    if (parseError.error != QJsonParseError::NoError)
        return Error{QStringLiteral("%1: %2").arg(path, parseError.errorString())};

    const QDir dir = QFileInfo(path).dir();  // the case folder: the file names are relative to it
    Fixture f;
    f.weights_path = dir.filePath(doc[u"weights_file"].toString());
    f.input_path = dir.filePath(doc[u"input"].toString());
    f.scheme = doc[u"scheme"].toString();
    f.weights_rounded =
        doc[u"dtype"].toString() == QLatin1String("float64") || doc[u"dtype"].toString() == QLatin1String("json");
    f.num_heads = doc[u"num_heads"].toInt();
    f.heads_option = doc[u"heads_option"].toInt();
    f.layer = doc[u"layer"].toInt();
    f.layer_count = doc[u"layer_count"].toInt();
    f.d_model = doc[u"dims"][u"d_model"].toInt();
    f.causal = doc[u"causal"].toBool();
    Result<ScaleSetting> scale = ScaleSetting::parse(doc[u"scale"].toString());
    if (!scale)
        return Error{QStringLiteral("%1: %2").arg(path, scale.error())};
    f.scale = *scale;

    Result<MatrixD> input = readMatrix(doc[u"input_values"], QStringLiteral("input_values"));
    Result<MatrixD> output = readMatrix(doc[u"output"], QStringLiteral("output"));
    if (!input || !output)
        return Error{QStringLiteral("%1: %2").arg(path, !input ? input.error() : output.error())};
    f.input = input->cast<float>();  // exact: the values were float32 to begin with
    if (doc.contains(u"kv_input")) {
        f.kv_input_path = dir.filePath(doc[u"kv_input"].toString());
        Result<MatrixD> kv = readMatrix(doc[u"kv_input_values"], QStringLiteral("kv_input_values"));
        if (!kv)
            return Error{QStringLiteral("%1: %2").arg(path, kv.error())};
        f.kv_input = kv->cast<float>();
    }
    if (doc.contains(u"pad_keys")) {
        f.key_padding.assign(size_t(f.keyLength()), false);
        for (const QJsonValue key : doc[u"pad_keys"].toArray()) {
            if (!key.isDouble() || key.toInt(-1) < 0 || key.toInt(-1) >= f.keyLength())
                return Error{QStringLiteral("%1: a pad_keys entry is not a key position").arg(path)};
            f.key_padding[size_t(key.toInt())] = true;
        }
        for (const QJsonValue row : doc[u"empty_rows"].toArray())
            f.empty_rows.push_back(row.toInt(-1));
    }
    f.output = *output;
    const QJsonArray heads = doc[u"attention"].toArray();
    for (qsizetype h = 0; h < heads.size(); ++h) {
        Result<MatrixD> a = readMatrix(heads[h], QStringLiteral("attention[%1]").arg(h));
        if (!a)
            return Error{QStringLiteral("%1: %2").arg(path, a.error())};
        f.attention.push_back(*a);
    }

    const Eigen::Index seq_len = f.input.rows();
    if (int(f.attention.size()) != f.num_heads || f.output.rows() != seq_len)
        return Error{QStringLiteral("%1: %2 attention heads for num_heads %3, %4 output rows for %5 tokens")
                         .arg(path)
                         .arg(f.attention.size())
                         .arg(f.num_heads)
                         .arg(f.output.rows())
                         .arg(seq_len)};
    for (const MatrixD& a : f.attention)
        if (a.rows() != seq_len || a.cols() != f.keyLength())
            return Error{QStringLiteral("%1: an attention matrix is %2x%3, expected %4x%5")
                             .arg(path)
                             .arg(a.rows())
                             .arg(a.cols())
                             .arg(seq_len)
                             .arg(f.keyLength())};
    return f;
}

Result<LoadedWeights> loadWeights(const Fixture& f)
{
    WeightFileOptions options;
    options.layer = f.layer;
    options.num_heads = f.heads_option;
    return WeightFile::load(f.weights_path, options);
}

struct Deviation {
    double max_error = 0.0;
    QString where;  // the worst entry, e.g. "head 1 [3][2]: 0.25 vs 0.2500001"
};

void accumulate(Deviation& d, const Matrix& actual, const MatrixD& expected, const QString& what)
{
    for (Eigen::Index r = 0; r < expected.rows(); ++r)
        for (Eigen::Index c = 0; c < expected.cols(); ++c) {
            const double error = std::abs(double(actual(r, c)) - expected(r, c));
            if (error > d.max_error || std::isnan(error)) {
                d.max_error = std::isnan(error) ? INFINITY : error;
                d.where = QStringLiteral("%1[%2][%3]: engine %4, torch %5")
                              .arg(what)
                              .arg(r)
                              .arg(c)
                              .arg(double(actual(r, c)), 0, 'g', 9)
                              .arg(expected(r, c), 0, 'g', 17);
            }
        }
}

void addFixtureRows()
{
    QTest::addColumn<QString>("path");
    const QDir dir(fixturesDir());
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        if (dir.exists(name + QStringLiteral("/expected.json")))
            QTest::newRow(qPrintable(name)) << dir.filePath(name + QStringLiteral("/expected.json"));
}

// The cases with padded keys only.
void addPaddedFixtureRows()
{
    QTest::addColumn<QString>("path");
    const QDir dir(fixturesDir());
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        QFile file(dir.filePath(name + QStringLiteral("/expected.json")));
        if (file.open(QIODevice::ReadOnly) && QJsonDocument::fromJson(file.readAll()).object().contains(u"pad_keys"))
            QTest::newRow(qPrintable(name)) << file.fileName();
    }
}

}  // namespace

class TestTorchAgreement : public QObject {
    Q_OBJECT

private slots:
    void everyCaseIsPresent();
    void fixtureIsConsistent_data() { addFixtureRows(); }
    void fixtureIsConsistent();
    void inputFileHoldsTheInputValues_data() { addFixtureRows(); }
    void inputFileHoldsTheInputValues();
    void matchesPyTorch_data() { addFixtureRows(); }
    void matchesPyTorch();
    void rowsSumToOne_data() { addFixtureRows(); }
    void rowsSumToOne();
    void causalUpperTriangleIsExactlyZero_data() { addFixtureRows(); }
    void causalUpperTriangleIsExactlyZero();
    void paddedKeysAndEmptyRowsAreExactlyZero_data() { addPaddedFixtureRows(); }
    void paddedKeysAndEmptyRowsAreExactlyZero();
};

void TestTorchAgreement::everyCaseIsPresent()
{
    const QDir dir(fixturesDir());
    QVERIFY2(dir.exists(), qPrintable(dir.path()));
    for (const QString& name : kExpectedCases)
        QVERIFY2(dir.exists(name + QStringLiteral("/expected.json")), qPrintable(name));
}

// The fixture itself is what its header says: files present, shapes agreeing, softmax rows of
// the reference summing to 1 and its causal upper triangle exactly 0.
void TestTorchAgreement::fixtureIsConsistent()
{
    QFETCH(QString, path);
    const Result<Fixture> f = readFixture(path);
    QVERIFY2(f.ok(), qPrintable(f.error()));
    QVERIFY2(QFile::exists(f->weights_path), qPrintable(f->weights_path));
    QVERIFY2(QFile::exists(f->input_path), qPrintable(f->input_path));
    QVERIFY(f->num_heads > 0 && f->d_model % f->num_heads == 0);
    QVERIFY(f->layer >= 0 && f->layer < f->layer_count);
    if (!f->kv_input_path.isEmpty())
        QVERIFY2(QFile::exists(f->kv_input_path), qPrintable(f->kv_input_path));
    const Eigen::Index seq_len = f->input.rows();
    for (const MatrixD& a : f->attention) {
        // A row sums to 1, or is all zeros when its query sees no key (the contract, not torch's NaN).
        for (Eigen::Index i = 0; i < seq_len; ++i)
            QVERIFY2(std::abs(a.row(i).sum() - (f->isEmptyRow(i) ? 0.0 : 1.0)) < 1e-12,
                     qPrintable(QStringLiteral("row %1 sums to %2").arg(i).arg(a.row(i).sum())));
        QVERIFY(a.minCoeff() >= 0.0);
        for (Eigen::Index j = 0; j < Eigen::Index(f->key_padding.size()); ++j)
            if (f->key_padding[size_t(j)])
                QVERIFY2(a.col(j).isZero(0.0), qPrintable(QStringLiteral("padded key %1").arg(j)));
        for (Eigen::Index i = 0; i < seq_len && f->causal; ++i)
            for (Eigen::Index j = i + 1; j < a.cols(); ++j)
                QVERIFY2(a(i, j) == 0.0, qPrintable(QStringLiteral("[%1][%2] = %3").arg(i).arg(j).arg(a(i, j))));
    }
}

// The committed <case>.input.npy (what --input would read) is bit for bit the input the test uses.
void TestTorchAgreement::inputFileHoldsTheInputValues()
{
    QFETCH(QString, path);
    const Result<Fixture> f = readFixture(path);
    QVERIFY2(f.ok(), qPrintable(f.error()));
    const Result<Matrix> input = NpyReader::readMatrixFile(f->input_path);
    QVERIFY2(input.ok(), qPrintable(input.error()));
    QCOMPARE(input->rows(), f->input.rows());
    QCOMPARE(input->cols(), f->input.cols());
    QVERIFY(*input == f->input);
    if (f->kv_input_path.isEmpty())
        return;
    const Result<Matrix> kv = NpyReader::readMatrixFile(f->kv_input_path);
    QVERIFY2(kv.ok(), qPrintable(kv.error()));
    QCOMPARE(kv->rows(), f->kv_input.rows());
    QCOMPARE(kv->cols(), f->kv_input.cols());
    QVERIFY(*kv == f->kv_input);
}

void TestTorchAgreement::matchesPyTorch()
{
    QFETCH(QString, path);
    const Result<Fixture> f = readFixture(path);
    QVERIFY2(f.ok(), qPrintable(f.error()));
    const Result<LoadedWeights> loaded = loadWeights(*f);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));

    const AttentionWeights& w = loaded->weights;
    QCOMPARE(loaded->scheme, f->scheme);
    QCOMPARE(loaded->layer_count, f->layer_count);
    QCOMPARE(w.num_heads, f->num_heads);
    QCOMPARE(w.inputDim(), int(f->input.cols()));
    QCOMPARE(w.dModel(), f->d_model);
    QCOMPARE(w.outputDim(), int(f->output.cols()));

    const Result<AttentionTrace> trace =
        AttentionEngine::forward(f->input, f->keyInput(), f->keyInput(), w, f->options());
    QVERIFY2(trace.ok(), qPrintable(trace.error()));
    QCOMPARE(int(trace->probabilities.size()), f->num_heads);
    QCOMPARE(trace->keyLength(), int(f->keyLength()));
    QCOMPARE(trace->output.rows(), f->output.rows());
    QCOMPARE(trace->output.cols(), f->output.cols());

    Deviation attention;
    Deviation output;
    for (int h = 0; h < f->num_heads; ++h)
        accumulate(attention, trace->probabilities[size_t(h)], f->attention[size_t(h)], QStringLiteral("head %1").arg(h));
    accumulate(output, trace->output, f->output, QStringLiteral("output"));

    std::vector<DoubleMatrix> larger;
    for (int h = 0; h < f->num_heads; ++h)
        larger.push_back(f->attention[size_t(h)].cwiseMax(trace->probabilities[size_t(h)].cast<double>()));
    const DoubleMatrix no_difference = DoubleMatrix::Zero(f->input.rows(), f->input.cols());
    const DoubleMatrix no_key_difference = DoubleMatrix::Zero(f->keyInput().rows(), f->keyInput().cols());
    const double weight_error = f->weights_rounded ? kUnitRoundoff / (1.0 - kUnitRoundoff) : 0.0;
    const double scale = 1.0 / f->scale.divisor(w.headDim());
    const AttentionLayerBounds bounds = attentionLayerBounds(
        w, {f->input, no_difference, trace->q, trace->k, larger, &f->keyInput(), &no_key_difference, weight_error}, {},
        scale, 1);
    const AttentionOutputBounds output_bounds =
        attentionOutputBounds(w, bounds, larger, trace->v, trace->concat, weight_error, 1);
    double share = 0.0, worst = 0.0;
    for (int h = 0; h < f->num_heads; ++h) {
        const QString beyond =
            beyondBound("attention", trace->probabilities[size_t(h)], DoubleMatrix(f->attention[size_t(h)]),
                        bounds.probabilities[size_t(h)], &share);
        worst = std::max(worst, share);
        QVERIFY2(beyond.isEmpty(), qPrintable(QStringLiteral("head %1: %2 (%3)").arg(h).arg(beyond, attention.where)));
    }
    const QString beyond = beyondBound("output", trace->output, DoubleMatrix(f->output), output_bounds.output, &share);
    worst = std::max(worst, share);
    QVERIFY2(beyond.isEmpty(), qPrintable(QStringLiteral("%1 (%2)").arg(beyond, output.where)));
    qInfo("max |engine - torch|: attention %.3g, output %.3g; worst %.3g of the float32 bound", attention.max_error,
          output.max_error, worst);
}

// Whatever the weights, with and without the causal mask: every row of every head is a
// probability distribution.
void TestTorchAgreement::rowsSumToOne()
{
    QFETCH(QString, path);
    const Result<Fixture> f = readFixture(path);
    QVERIFY2(f.ok(), qPrintable(f.error()));
    const Result<LoadedWeights> loaded = loadWeights(*f);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    for (bool causal : {false, true}) {
        AttentionOptions options;
        options.causal = causal;
        options.scale = f->scale;
        const Result<AttentionTrace> trace =
            AttentionEngine::forward(f->input, f->keyInput(), f->keyInput(), loaded->weights, options);
        QVERIFY2(trace.ok(), qPrintable(trace.error()));
        for (const Matrix& a : trace->probabilities) {
            QVERIFY(a.minCoeff() >= 0.0f);
            // Float32Bounds.h: rowSumBound of the row's visible keys, at most all of them.
            const double worst = (a.cast<double>().rowwise().sum().array() - 1.0).abs().maxCoeff();
            QVERIFY2(worst <= rowSumBound(a.cols()),
                     qPrintable(QStringLiteral("causal %1: a row sum is off 1 by %2").arg(causal).arg(worst)));
        }
    }
}

// With the causal mask, query i never sees key j > i: those weights are exactly 0.0f, not tiny
// (QCOMPARE would accept |x| <= 1e-5 as zero, hence the exact ==).
void TestTorchAgreement::causalUpperTriangleIsExactlyZero()
{
    QFETCH(QString, path);
    const Result<Fixture> f = readFixture(path);
    QVERIFY2(f.ok(), qPrintable(f.error()));
    const Result<LoadedWeights> loaded = loadWeights(*f);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    AttentionOptions options;
    options.causal = true;
    options.scale = f->scale;
    const Result<AttentionTrace> trace =
        AttentionEngine::forward(f->input, f->keyInput(), f->keyInput(), loaded->weights, options);
    QVERIFY2(trace.ok(), qPrintable(trace.error()));
    for (const Matrix& a : trace->probabilities)
        for (Eigen::Index i = 0; i < a.rows(); ++i)
            for (Eigen::Index j = i + 1; j < a.cols(); ++j)
                QVERIFY2(a(i, j) == 0.0f, qPrintable(QStringLiteral("[%1][%2] = %3").arg(i).arg(j).arg(a(i, j))));
}

// Padding, like the causal mask, is exact: a padded key's weight is 0.0f from every query, and a
// query that sees no key at all (torch: NaN) has a row of exact zeros, so its output is the
// output bias alone (checked against the fixture by matchesPyTorch).
void TestTorchAgreement::paddedKeysAndEmptyRowsAreExactlyZero()
{
    QFETCH(QString, path);
    const Result<Fixture> f = readFixture(path);
    QVERIFY2(f.ok(), qPrintable(f.error()));
    QVERIFY(!f->key_padding.empty());
    const Result<LoadedWeights> loaded = loadWeights(*f);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    const Result<AttentionTrace> trace =
        AttentionEngine::forward(f->input, f->keyInput(), f->keyInput(), loaded->weights, f->options());
    QVERIFY2(trace.ok(), qPrintable(trace.error()));
    for (const Matrix& a : trace->probabilities) {
        for (Eigen::Index j = 0; j < a.cols(); ++j)
            if (f->key_padding[size_t(j)])
                for (Eigen::Index i = 0; i < a.rows(); ++i)
                    QVERIFY2(a(i, j) == 0.0f, qPrintable(QStringLiteral("[%1][%2] = %3").arg(i).arg(j).arg(a(i, j))));
        for (int row : f->empty_rows)
            QVERIFY2(a.row(row).isZero(0.0f), qPrintable(QStringLiteral("empty row %1").arg(row)));
        QVERIFY(allFinite(a));
    }
    for (int row : f->empty_rows)
        QVERIFY2(trace->concat.row(row).isZero(0.0f), qPrintable(QStringLiteral("head outputs of row %1").arg(row)));
}

REGISTER_TEST_SUITE(TestTorchAgreement, QCoreApplication)
#include "test_torch_agreement.moc"
