// safetensors: every naming scheme, the dtype conversions, num_heads, layer selection, and a
// refusal for every check of the header and of the attention tensors.

#include "core/io/FloatConversion.h"
#include "core/io/SafetensorsReader.h"
#include "core/weights/WeightFile.h"
#include "core/weights/WeightNaming.h"
#include "tests/support/WeightFileWriters.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <bit>
#include <cmath>
#include <limits>

using namespace attn;
using namespace attn::testing;

namespace {

const QJsonObject kTwoHeads{{"num_heads", "2"}};

Result<LoadedWeights> loadBytes(const QByteArray& bytes, const WeightFileOptions& options = {},
                                const QString& name = "model.safetensors")
{
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    if (!writeFile(path, bytes))
        return Error{"test could not write the file"};
    return WeightFile::load(path, options);
}

void expectSame(const AttentionWeights& got, const SampleWeights& want, bool biases = true, bool output = true)
{
    QCOMPARE(Matrix(got.wq()), want.wq);
    QCOMPARE(Matrix(got.wk()), want.wk);
    QCOMPARE(Matrix(got.wv()), want.wv);
    if (biases) {
        RowVector b(want.bq.size() * 3);
        b << want.bq, want.bk, want.bv;
        QCOMPARE(got.in_bias, b);
    } else {
        QCOMPARE(got.in_bias.size(), 0);
    }
    if (output) {
        QCOMPARE(got.out_proj, want.wo);
        QCOMPARE(got.out_bias, want.bo);
    } else {
        QVERIFY(!got.hasOutputProjection());
    }
}

// A header entry written by hand, for files that lie.
QByteArray entry(const QString& name, const QString& dtype, const QString& shape, qint64 begin, qint64 end)
{
    return QStringLiteral("\"%1\": {\"dtype\": \"%2\", \"shape\": %3, \"data_offsets\": [%4, %5]}")
        .arg(name, dtype, shape)
        .arg(begin)
        .arg(end)
        .toUtf8();
}

QByteArray header(const QList<QByteArray>& entries, const QByteArray& metadata = "{\"num_heads\": \"1\"}")
{
    QByteArray h = "{\"__metadata__\": " + metadata;
    for (const QByteArray& e : entries)
        h += ", " + e;
    return h + "}";
}

// A file of `header` whose data section is `data_bytes` long but holds no data: a sparse file, so
// a consistent file of gigabytes costs nothing on disk. Empty when the file system cannot.
QString sparseFile(const QTemporaryDir& dir, const QByteArray& header, qint64 data_bytes)
{
    const QString path = dir.filePath("huge.safetensors");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(safetensorsRaw(header, {})) != 8 + header.size() ||
        !file.resize(8 + header.size() + data_bytes))
        return {};
    return path;
}

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private slots:
    // --- conversions, checked bit for bit ---
    void halfMatchesQtForEveryBitPattern()
    {
        for (quint32 bits = 0; bits <= 0xffff; ++bits) {
            quint16 h = quint16(bits);
            qfloat16 reference;
            std::memcpy(static_cast<void*>(&reference), &h, 2);
            const float expected = float(reference);
            const float got = halfToFloat(h);
            if (std::isnan(expected))
                QVERIFY2(std::isnan(got), qPrintable(QString::number(bits, 16)));
            else
                QVERIFY2(std::bit_cast<quint32>(got) == std::bit_cast<quint32>(expected),
                         qPrintable(QString::number(bits, 16)));
        }
    }

    void knownConversions()
    {
        QCOMPARE(halfToFloat(0x3C00), 1.0f);
        QCOMPARE(halfToFloat(0x3555), 0.333251953125f);
        QCOMPARE(halfToFloat(0x0001), 5.9604644775390625e-08f);  // smallest subnormal, 2^-24
        QCOMPARE(halfToFloat(0x03FF), 6.097555160522461e-05f);   // largest subnormal
        QCOMPARE(halfToFloat(0x7BFF), 65504.0f);
        QCOMPARE(std::bit_cast<quint32>(halfToFloat(0x8000)), 0x80000000u);  // -0
        QVERIFY(std::isinf(halfToFloat(0xFC00)) && halfToFloat(0xFC00) < 0);
        QCOMPARE(bfloat16ToFloat(0x3F80), 1.0f);
        QCOMPARE(bfloat16ToFloat(0xC0A0), -5.0f);
        QCOMPARE(bfloat16ToFloat(0x3EAB), 0.333984375f);
        QCOMPARE(bfloat16ToFloat(0x7F7F), 3.3895313892515355e38f);
        QCOMPARE(bfloat16ToFloat(0x0001), 9.183549615799121e-41f);  // subnormal
    }

    void convertsWeightDtypesExactly_data()
    {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<std::vector<float>>("expected");
        // in_proj_weight (3, 2): E = 1, input_dim 2.
        QTest::newRow("F16") << "F16" << u16Bytes({0x3C00, 0xC000, 0x3555, 0x0001, 0x7BFF, 0x3800})
                             << std::vector<float>{1.0f,     -2.0f, 0.333251953125f, 5.9604644775390625e-08f,
                                                   65504.0f, 0.5f};
        QTest::newRow("BF16") << "BF16" << u16Bytes({0x3F80, 0xC0A0, 0x3EAB, 0x0001, 0x7F7F, 0x3F00})
                              << std::vector<float>{
                                     1.0f, -5.0f, 0.333984375f, 9.183549615799121e-41f, 3.3895313892515355e38f, 0.5f};
        QTest::newRow("F64") << "F64" << f64Bytes({0.1, -1e-3, 12345.678, 1e-40, -3.0e38, 0.5})
                             << std::vector<float>{0.1f, -1e-3f, 12345.678f, 1e-40f, -3.0e38f, 0.5f};
        QTest::newRow("F32") << "F32" << f32Bytes({1.5f, -0.25f, 3.0f, 4.0f, 5.0f, 6.0f})
                             << std::vector<float>{1.5f, -0.25f, 3.0f, 4.0f, 5.0f, 6.0f};
    }
    void convertsWeightDtypesExactly()
    {
        QFETCH(QString, dtype);
        QFETCH(QByteArray, data);
        QFETCH(std::vector<float>, expected);
        auto loaded =
            loadBytes(safetensors({{"in_proj_weight", dtype, {3, 2}, data}}, QJsonObject{{"num_heads", "1"}}));
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        // in_proj_weight row r is output r: in_proj = in_proj_weight^T, so in_proj(c, r) = value[r * 2 + c].
        const Matrix& in = loaded->weights.in_proj;
        QCOMPARE(in.rows(), 2);
        QCOMPARE(in.cols(), 3);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 2; ++c)
                QCOMPARE(in(c, r), expected[size_t(r * 2 + c)]);
    }

    // --- the three naming schemes ---
    void multiheadAttentionStateDict()
    {
        const SampleWeights w = SampleWeights::make(4, 4, 4);
        auto loaded = loadBytes(safetensorsF32(mhaTensors(w), kTwoHeads));
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(loaded->scheme, QString("nn.MultiheadAttention"));
        QCOMPARE(loaded->layer_count, 1);
        QCOMPARE(loaded->weights.num_heads, 2);
        expectSame(loaded->weights, w);
    }

    void multiheadAttentionSeparateWeights()
    {
        const SampleWeights w = SampleWeights::make(6, 4, 4);  // input_dim 6 != embed_dim 4
        auto loaded = loadBytes(safetensorsF32(mhaSeparateTensors(w, "attn."), kTwoHeads));
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(loaded->scheme, QString("nn.MultiheadAttention"));
        QCOMPARE(loaded->weights.inputDim(), 6);
        expectSame(loaded->weights, w);
    }

    void separateProjectionsUnderAPrefix_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QString>("out");
        QTest::newRow("llama") << "model.layers.0.self_attn."
                               << "o_proj";
        QTest::newRow("bart") << "model.encoder.layers.0.self_attn."
                              << "out_proj";
        QTest::newRow("no prefix") << ""
                                   << "out_proj";
    }
    void separateProjectionsUnderAPrefix()
    {
        QFETCH(QString, prefix);
        QFETCH(QString, out);
        const SampleWeights w = SampleWeights::make(4, 6, 5);
        std::vector<NamedF32> tensors = projTensors(w, prefix, out);
        tensors.push_back({"model.embed_tokens.weight", {10, 4}, f32Bytes(std::vector<float>(40, 0.5f))});
        tensors.push_back({prefix + "rotary_emb.inv_freq", {3}, f32Bytes({1, 2, 3})});
        auto loaded = loadBytes(safetensorsF32(tensors, QJsonObject{{"num_heads", "3"}, {"format", "pt"}}));
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(loaded->scheme, QString("q_proj/k_proj/v_proj"));
        QCOMPARE(loaded->tensor_prefix, prefix);
        QCOMPARE(loaded->weights.num_heads, 3);
        expectSame(loaded->weights, w);
    }

    void missingBiasesAreZeroAndOutputIsOptional()
    {
        // Whisper's k_proj has no bias; a q/k/v-only file has no output projection.
        const SampleWeights w = SampleWeights::make(4, 4, 4);
        std::vector<NamedF32> tensors = projTensors(w, "enc.");
        tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                                     [](const NamedF32& t) {
                                         return t.name == "enc.k_proj.bias" || t.name.startsWith("enc.out_proj");
                                     }),
                      tensors.end());
        auto loaded = loadBytes(safetensorsF32(tensors, kTwoHeads));
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QVERIFY(!loaded->weights.hasOutputProjection());
        QCOMPARE(RowVector(loaded->weights.in_bias.segment(0, 4)), w.bq);
        QCOMPARE(RowVector(loaded->weights.in_bias.segment(4, 4)), RowVector::Zero(4));
        QCOMPARE(RowVector(loaded->weights.in_bias.segment(8, 4)), w.bv);
    }

    void gpt2SelectsTheLayer_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::newRow("transformer.") << "transformer.";
        QTest::newRow("bare h.N") << "";
    }
    void gpt2SelectsTheLayer()
    {
        QFETCH(QString, prefix);
        std::vector<StTensor> st;
        st.push_back({prefix + "wte.weight", "F32", {5, 4}, f32Bytes(std::vector<float>(20, 1.0f))});
        st.push_back({prefix + "wpe.weight", "F32", {8, 4}, f32Bytes(std::vector<float>(32, 1.0f))});
        for (int layer = 0; layer < 3; ++layer) {
            const QString p = prefix + QStringLiteral("h.%1.").arg(layer);
            for (const NamedF32& t : gpt2Tensors(SampleWeights::make(4, 4, 4, float(layer)), p + "attn."))
                st.push_back({t.name, "F32", t.shape, t.data});
            st.push_back({p + "attn.bias", "BOOL", {1, 1, 8, 8}, QByteArray(64, '\1')});  // the causal mask buffer
            st.push_back({p + "attn.masked_bias", "F32", {}, f32Bytes({-1e4f})});         // 0-d scalar
            st.push_back({p + "ln_1.weight", "F32", {4}, f32Bytes({1, 1, 1, 1})});
            st.push_back({p + "mlp.c_proj.weight", "F16", {16, 4}, QByteArray(128, '\0')});
        }
        st.push_back({"position_ids", "I64", {1, 8}, i64Bytes({0, 1, 2, 3, 4, 5, 6, 7})});
        const QByteArray file = safetensors(st);
        for (int layer = 0; layer < 3; ++layer) {
            auto loaded = loadBytes(file, {layer, 2});
            QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
            QCOMPARE(loaded->scheme, QString("gpt2"));
            QCOMPARE(loaded->layer_count, 3);
            QCOMPARE(loaded->tensor_prefix, prefix + QStringLiteral("h.%1.attn.").arg(layer));
            QCOMPARE(loaded->weights.num_heads, 2);
            expectSame(loaded->weights, SampleWeights::make(4, 4, 4, float(layer)));
        }
        auto beyond = loadBytes(file, {3, 2});
        QVERIFY(!beyond.ok());
        QVERIFY2(beyond.error() ==
                     "model.safetensors: layer 3 is out of range: the file holds 3 attention layers (layers 0..2)",
                 qPrintable(beyond.error()));
        QVERIFY(!loadBytes(file, {-1, 2}).ok());
    }

    void layersAreInNaturalOrder()
    {
        std::vector<NamedF32> tensors;
        for (int layer = 0; layer < 12; ++layer)
            for (const NamedF32& t :
                 projTensors(SampleWeights::make(2, 2, 2, float(layer)), QStringLiteral("layers.%1.attn.").arg(layer)))
                tensors.push_back(t);
        auto loaded = loadBytes(safetensorsF32(tensors, kTwoHeads), {10, 0});
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        QCOMPARE(loaded->layer_count, 12);
        QCOMPARE(loaded->tensor_prefix, QString("layers.10.attn."));
        expectSame(loaded->weights, SampleWeights::make(2, 2, 2, 10.0f));
        QVERIFY(WeightNaming::naturalLess("layers.2.", "layers.10."));
        QVERIFY(!WeightNaming::naturalLess("layers.10.", "layers.2."));
        QVERIFY(WeightNaming::naturalLess("a.007.x", "a.8.x"));
        QVERIFY(WeightNaming::naturalLess("decoder.0", "encoder.0"));
    }

    void numHeadsFromMetadataOrOverride()
    {
        const QByteArray file =
            safetensorsF32(mhaTensors(SampleWeights::make(8, 8, 8)), QJsonObject{{"num_heads", "4"}});
        auto fromFile = loadBytes(file);
        QVERIFY2(fromFile.ok(), qPrintable(fromFile.error()));
        QCOMPARE(fromFile->weights.num_heads, 4);
        auto overridden = loadBytes(file, {0, 8});
        QVERIFY2(overridden.ok(), qPrintable(overridden.error()));
        QCOMPARE(overridden->weights.num_heads, 8);
        auto none = loadBytes(safetensorsF32(mhaTensors(SampleWeights::make(8, 8, 8))));
        QVERIFY(!none.ok());
        QVERIFY2(none.error().contains("number of heads is not known") && none.error().contains("__metadata__"),
                 qPrintable(none.error()));
        // Core messages say what is wrong, not which option would fix it: the window has no flags.
        QVERIFY2(!none.error().contains("--"), qPrintable(none.error()));
    }

    void readerListsTensorsAndMetadata()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("m.safetensors");
        QVERIFY(writeFile(path, safetensors({{"b", "F32", {2}, f32Bytes({1, 2})}, {"a", "I8", {3}, "xyz"}},
                                            QJsonObject{{"num_heads", "2"}, {"format", "pt"}})));
        auto reader = SafetensorsReader::open(path);
        QVERIFY2(reader.ok(), qPrintable(reader.error()));
        QCOMPARE((*reader)->tensorNames(), (QStringList{"b", "a"}));  // data order
        QCOMPARE((*reader)->metadata().value("format"), QString("pt"));
        QCOMPARE((*reader)->find("b")->end, 8);
        QCOMPARE((*reader)->find("a")->begin, 8);
        QCOMPARE((*reader)->find("a")->shape, Shape{3});
        auto b = (*reader)->readTensor("b");
        QVERIFY(b.ok());
        QCOMPARE(b->values(0, 1), 2.0f);
        auto a = (*reader)->readTensor("a");
        QVERIFY(!a.ok() && a.error().contains("dtype I8"));
    }

    // An extra tensor of a dtype this program does not know (a newer one of the format) is skipped
    // while it is not needed; used, it is refused by name.
    void unknownDtypeIsRefusedOnlyWhereUsed()
    {
        const QByteArray in12x4 = f32Bytes(std::vector<float>(48, 0.25f));
        auto unused = loadBytes(safetensors(
            {{"in_proj_weight", "F32", {12, 4}, in12x4}, {"quant.scale", "F8_E4M3FNUZ", {3}, "abc"}}, kTwoHeads));
        QVERIFY2(unused.ok(), qPrintable(unused.error()));
        QCOMPARE(unused->weights.dModel(), 4);

        auto used =
            loadBytes(safetensors({{"in_proj_weight", "F8_E4M3FNUZ", {12, 4}, QByteArray(48, '\x10')}}, kTwoHeads));
        QVERIFY(!used.ok());
        QCOMPARE(used.error(), QString("model.safetensors: tensor 'in_proj_weight' has unknown dtype 'F8_E4M3FNUZ'"));
    }

    // A shape that the limits refuse is refused from the header: the 3 GiB of a consistent
    // [3, 2^28] F32 tensor are never read.
    void limitsApplyBeforeReading_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<qint64>("data_bytes");
        QTest::addColumn<QString>("reason");
        QTest::newRow("input_dim 2^28, 3 GiB")
            << header({entry("in_proj_weight", "F32", "[3, 268435456]", 0, qint64(3) << 30)}) << (qint64(3) << 30)
            << "tensor 'in_proj_weight' has shape (3, 268435456): input_dim 268435456 is above the limit of 65536";
        QTest::newRow("q_proj claims 4 TiB")
            << header({entry("q_proj.weight", "F32", "[1048576, 1048576]", 0, qint64(4) << 40),
                       entry("k_proj.weight", "F32", "[1, 1]", qint64(4) << 40, (qint64(4) << 40) + 4),
                       entry("v_proj.weight", "F32", "[1, 1]", (qint64(4) << 40) + 4, (qint64(4) << 40) + 8)})
            << (qint64(4) << 40) + 8
            << "tensor 'k_proj.weight' has shape (1, 1) but 'q_proj.weight' has (1048576, 1048576)";
        QTest::newRow("q/k/v claim 4 TiB each")
            << header({entry("q_proj.weight", "F32", "[1048576, 1048576]", 0, qint64(4) << 40),
                       entry("k_proj.weight", "F32", "[1048576, 1048576]", qint64(4) << 40, qint64(8) << 40),
                       entry("v_proj.weight", "F32", "[1048576, 1048576]", qint64(8) << 40, qint64(12) << 40)})
            << (qint64(12) << 40)
            << "tensor 'q_proj.weight' has shape (1048576, 1048576): d_model 1048576 is above the limit of 65536";
        QTest::newRow("gpt2 output 2^30 wide")
            << header({entry("h.0.attn.c_attn.weight", "F32", "[1, 3]", 0, 12),
                       entry("h.0.attn.c_proj.weight", "F32", "[1, 1073741824]", 12, 12 + (qint64(4) << 30))})
            << 12 + (qint64(4) << 30) << "output_dim 1073741824 is above the limit of 65536";
        QTest::newRow("parameters over 2^30")
            << header({entry("in_proj_weight", "F32", "[196608, 65536]", 0, qint64(196608) * 65536 * 4)})
            << qint64(196608) * 65536 * 4
            << "input_dim 65536, d_model 65536 and output_dim 65536 make 17179869184 parameters, over the limit of "
               "1073741824";
    }
    void limitsApplyBeforeReading()
    {
        QFETCH(QByteArray, header);
        QFETCH(qint64, data_bytes);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = sparseFile(dir, header, data_bytes);
        if (path.isEmpty())
            QSKIP("this file system has no sparse files");
        auto loaded = WeightFile::load(path, {0, 1});
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().contains(reason), qPrintable(loaded.error()));
    }

    // Every array read through a TensorSource is limited to 2^30 elements before anything is
    // allocated, whoever asks for it.
    void readerRefusesAFourTebibyteTensor()
    {
        QTemporaryDir dir;
        const QString path =
            sparseFile(dir, header({entry("w", "F32", "[1048576, 1048576]", 0, qint64(4) << 40)}), qint64(4) << 40);
        if (path.isEmpty())
            QSKIP("this file system has no sparse files");
        auto reader = SafetensorsReader::open(path);
        QVERIFY2(reader.ok(), qPrintable(reader.error()));
        auto tensor = (*reader)->readTensor("w");
        QVERIFY(!tensor.ok());
        QCOMPARE(tensor.error(), QString("tensor 'w': shape (1048576, 1048576) has 1099511627776 elements, over the "
                                         "limit of 1073741824 for one array (4 GiB of float32)"));
    }

    // Zero rows: a valid empty array (UBSan once saw a null pointer passed to memcpy here).
    void zeroRowTensorIsEmpty()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("empty.safetensors");
        QVERIFY(writeFile(path, safetensors({{"w", "F32", {0, 8}, {}}, {"h", "F16", {0}, {}}})));
        auto reader = SafetensorsReader::open(path);
        QVERIFY2(reader.ok(), qPrintable(reader.error()));
        for (const QString name : {"w", "h"}) {
            auto tensor = (*reader)->readTensor(name);
            QVERIFY2(tensor.ok(), qPrintable(tensor.error()));
            QCOMPARE(tensor->values.size(), 0);
        }
        QCOMPARE((*reader)->readTensor("w")->values.cols(), 8);
    }

    // A header entry read by hand, as another reader of the format would call it.
    void headerChecksAreReusable()
    {
        auto length = SafetensorsHeader::headerLength(QByteArray("\x10\0\0\0\0\0\0\0", 8), 100);
        QVERIFY2(length.ok(), qPrintable(length.error()));
        QCOMPARE(*length, 16);
        auto parsed = SafetensorsHeader::parse(R"( {"b": {"dtype": "F16", "shape": [2], "data_offsets": [4, 8]},
            "a": {"dtype": "BF16", "shape": [1, 2], "data_offsets": [0, 4], "extra": [1]}} )",
                                               8);
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->tensors().size(), size_t(2));
        QCOMPARE(parsed->tensors()[0].name, QString("a"));  // in data order
        QCOMPARE(parsed->find("b")->begin, 4);
        QCOMPARE(parsed->find("a")->format, FloatFormat::BF16);
        QVERIFY(!SafetensorsHeader::headerLength(QByteArray(8, '\xff'), 100).ok());
    }

    // A name with a line break stays inside the one line of the refusal.
    void messagesStayOneLine()
    {
        auto loaded = loadBytes(safetensors({{"wte\nerror: fake", "F32", {1}, f32Bytes({1})}}));
        QVERIFY(!loaded.ok());
        QVERIFY2(!loaded.error().contains('\n'), qPrintable(loaded.error()));
        QVERIFY2(loaded.error().contains("wte\\x0aerror: fake"), qPrintable(loaded.error()));
    }

    // --- every refusal ---
    void rejects_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("reason");
        const QByteArray in12x4 = f32Bytes(std::vector<float>(48, 0.25f));
        const QByteArray validHeader = header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192)});

        QTest::newRow("shorter than 8 bytes") << QByteArray("\x10\0\0") << "shorter than the 8-byte header length";
        QTest::newRow("header length beyond the file")
            << safetensorsRaw(validHeader, in12x4, 10000) << "claims 10000 bytes but only";
        QTest::newRow("header length over 100 MB")
            << safetensorsRaw(validHeader, in12x4, 200'000'000) << "over the format's limit of 100000000";
        QTest::newRow("header length 2^64-1")
            << safetensorsRaw(validHeader, in12x4, ~quint64(0)) << "over the format's limit";
        QTest::newRow("invalid JSON") << safetensorsRaw("{\"in_proj_weight\": {", in12x4) << "not valid JSON";
        QTest::newRow("invalid UTF-8") << safetensorsRaw("{\"\xff\xfe\": 1}", {}) << "not valid JSON";
        QTest::newRow("JSON array") << safetensorsRaw("[1, 2, 3]", {}) << "not an object";
        QTest::newRow("JSON string") << safetensorsRaw("\"abc\"", {}) << "not valid JSON";
        QTest::newRow("entry not an object")
            << safetensorsRaw("{\"x\": 5}", {}) << "tensor 'x': its header entry is not an object";
        QTest::newRow("unknown dtype") << safetensorsRaw(header({entry("in_proj_weight", "Q7", "[12, 4]", 0, 192)}),
                                                         in12x4)
                                       << "unknown dtype 'Q7'";
        QTest::newRow("lowercase dtype") << safetensorsRaw(header({entry("in_proj_weight", "f32", "[12, 4]", 0, 192)}),
                                                           in12x4)
                                         << "unknown dtype 'f32'";
        QTest::newRow("missing dtype") << safetensorsRaw("{\"w\": {\"shape\": [1], \"data_offsets\": [0, 4]}}",
                                                         f32Bytes({1}))
                                       << "'dtype' is missing";
        QTest::newRow("negative shape") << safetensorsRaw(header({entry("in_proj_weight", "F32", "[-12, -4]", 0, 192)}),
                                                          in12x4)
                                        << "shape entry -12 is not a non-negative integer";
        QTest::newRow("fractional shape")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12.5, 4]", 0, 192)}), in12x4)
            << "shape entry 12.5";
        QTest::newRow("string shape") << safetensorsRaw(header({entry("in_proj_weight", "F32", "[\"12\", 4]", 0, 192)}),
                                                        in12x4)
                                      << "shape entry \"12\"";
        QTest::newRow("shape not an array")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "12", 0, 192)}), in12x4)
            << "'shape' is missing or not an array";
        QTest::newRow("shape product overflows")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[1099511627776, 1099511627776]", 0, 192)}),
                              in12x4)
            << "overflows 64 bits";
        QTest::newRow("byte count overflows")
            << safetensorsRaw(header({entry("in_proj_weight", "F64", "[4294967296, 536870912]", 0, 192)}), in12x4)
            << "overflows 64 bits";
        QTest::newRow("size mismatch")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 0, 180)}), in12x4.left(180))
            << "tensor 'in_proj_weight': shape (12, 4) of F32 claims 192 bytes but its data range [0, 180] holds 180";
        QTest::newRow("huge claim, small file")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[100000, 100000]", 0, 40000000000)}), in12x4)
            << "outside the data section of 192 bytes";
        QTest::newRow("offsets outside the data")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 100, 292)}), in12x4)
            << "lie outside the data section";
        QTest::newRow("offsets reversed")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 192, 0)}), in12x4)
            << "end before they begin";
        QTest::newRow("offsets negative")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", -192, 0)}), in12x4)
            << "not non-negative integers";
        QTest::newRow("offsets not a pair")
            << safetensorsRaw("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0]}}", f32Bytes({1}))
            << "not [begin, end]";
        QTest::newRow("overlapping tensors")
            << safetensorsRaw(
                   header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192), entry("extra", "F32", "[4]", 176, 192)}),
                   in12x4)
            << "overlap";
        QTest::newRow("same range twice")
            << safetensorsRaw(
                   header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192), entry("copy", "F32", "[12, 4]", 0, 192)}),
                   in12x4)
            << "overlap";
        QTest::newRow("hole between tensors")
            << safetensorsRaw(
                   header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192), entry("extra", "F32", "[4]", 200, 216)}),
                   in12x4 + QByteArray(24, '\0'))
            << "bytes [192, 200] of the data section belong to no tensor";
        QTest::newRow("hole at the start")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 8, 200)}), QByteArray(8, '\0') + in12x4)
            << "bytes [0, 8]";
        QTest::newRow("trailing bytes") << safetensorsRaw(validHeader, in12x4 + "trailing")
                                        << "at the end of the data section belong to no tensor";
        QTest::newRow("metadata not an object")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192)}, "[1]"), in12x4)
            << "__metadata__ is not an object";
        QTest::newRow("metadata value not a string")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192)}, "{\"num_heads\": 8}"), in12x4)
            << "__metadata__ value 'num_heads' is 8, not a string";
        QTest::newRow("metadata num_heads not a number")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192)}, "{\"num_heads\": \"two\"}"),
                              in12x4)
            << "__metadata__ num_heads 'two' is not a positive integer";
        QTest::newRow("metadata num_heads zero")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192)}, "{\"num_heads\": \"0\"}"),
                              in12x4)
            << "num_heads 0 is not a positive integer";
        QTest::newRow("byte order mark") << safetensorsRaw("\xef\xbb\xbf" + validHeader, in12x4)
                                         << "the header starts with a UTF-8 byte order mark";
        QTest::newRow("tensor named twice") << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192),
                                                                      entry("in_proj_weight", "F32", "[4]", 192, 208)}),
                                                              in12x4 + QByteArray(16, '\0'))
                                            << "tensor 'in_proj_weight' appears twice in the header";
        QTest::newRow("field given twice")
            << safetensorsRaw(
                   "{\"w\": {\"dtype\": \"F32\", \"dtype\": \"F16\", \"shape\": [1], \"data_offsets\": [0, 4]}}",
                   f32Bytes({1}))
            << "tensor 'w': 'dtype' appears twice in its header entry";
        QTest::newRow("__metadata__ twice")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192)}) + " ", in12x4)
                   .replace("{\"__metadata__\"", "{\"__metadata__\": {}, \"__metadata__\"")
            << "__metadata__ appears twice";
        QTest::newRow("metadata key twice")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192)},
                                     "{\"num_heads\": \"2\", \"num_heads\": \"1\"}"),
                              in12x4)
            << "__metadata__ key 'num_heads' appears twice";
        QTest::newRow("text after the object")
            << safetensorsRaw(validHeader + " {}", in12x4) << "unexpected text after the JSON value";
        QTest::newRow("trailing comma")
            << safetensorsRaw("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},}", f32Bytes({1}))
            << "a key expected";
        QTest::newRow("offset beyond 2^63")
            << safetensorsRaw(header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192)
                                          .replace("[0, 192]", "[0, 9223372036854775808]")}),
                              in12x4)
            << "are not non-negative integers below 2^63";
        QTest::newRow("offset 1e2")
            << safetensorsRaw(
                   header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192).replace("[0, 192]", "[0, 1.92e2]")}),
                   in12x4)
            << "data_offsets [0, 1.92e2] are not non-negative integers";
        QTest::newRow("unknown dtype, offsets outside")
            << safetensorsRaw(
                   header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192), entry("x", "Q7", "[1]", 192, 300)}),
                   in12x4)
            << "tensor 'x': data_offsets [192, 300] lie outside the data section of 192 bytes";
        QTest::newRow("q/k/v of 2^62 x 0") << safetensors({{"q_proj.weight", "F32", {qint64(1) << 62, 0}, {}},
                                                           {"k_proj.weight", "F32", {qint64(1) << 62, 0}, {}},
                                                           {"v_proj.weight", "F32", {qint64(1) << 62, 0}, {}}},
                                                          kTwoHeads)
                                           << "tensor 'q_proj.weight' has shape (4611686018427387904, 0); expected "
                                              "(d_model, input_dim), both at least 1";
        QTest::newRow("sub-byte dtype, partial byte")
            << safetensorsRaw(
                   header({entry("in_proj_weight", "F32", "[12, 4]", 0, 192), entry("packed", "F4", "[3]", 192, 194)}),
                   in12x4 + "ab")
            << "does not fill a whole number of bytes";

        // The attention tensors themselves.
        QTest::newRow("no attention tensors") << safetensors({{"wte.weight", "F32", {2, 2}, f32Bytes({1, 2, 3, 4})}})
                                              << "no attention weights found: expected nn.MultiheadAttention names";
        QTest::newRow("empty file of tensors") << safetensorsRaw("{}", {}) << "the file holds no arrays";
        QTest::newRow("v_proj missing") << safetensorsF32({projTensors(SampleWeights::make(4, 4, 4), "a.")[0],
                                                           projTensors(SampleWeights::make(4, 4, 4), "a.")[2]},
                                                          kTwoHeads)
                                        << "tensor 'a.v_proj.weight' is missing";
        QTest::newRow("in_proj rows not 3E")
            << safetensors({{"in_proj_weight", "F32", {10, 4}, f32Bytes(std::vector<float>(40, 1))}}, kTwoHeads)
            << "tensor 'in_proj_weight' has shape (10, 4); expected (3 * embed_dim, input_dim)";
        QTest::newRow("in_proj 1-D") << safetensors({{"in_proj_weight", "F32", {48}, in12x4}}, kTwoHeads)
                                     << "expected a matrix";
        QTest::newRow("in_proj_bias wrong length")
            << safetensors({{"in_proj_weight", "F32", {12, 4}, in12x4},
                            {"in_proj_bias", "F32", {11}, f32Bytes(std::vector<float>(11, 0))}},
                           kTwoHeads)
            << "tensor 'in_proj_bias' has shape (11,); expected (12,)";
        QTest::newRow("out_proj wrong shape")
            << safetensors({{"in_proj_weight", "F32", {12, 4}, in12x4},
                            {"out_proj.weight", "F32", {4, 5}, f32Bytes(std::vector<float>(20, 0))}},
                           kTwoHeads)
            << "tensor 'out_proj.weight' has shape (4, 5); expected (d_out, 4)";
        QTest::newRow("out_proj.bias without weight")
            << safetensors(
                   {{"in_proj_weight", "F32", {12, 4}, in12x4}, {"out_proj.bias", "F32", {4}, f32Bytes({0, 0, 0, 0})}},
                   kTwoHeads)
            << "'out_proj.bias' is present but 'out_proj.weight' is missing";
        QTest::newRow("grouped-query k_proj")
            << safetensors({{"q_proj.weight", "F32", {4, 4}, f32Bytes(std::vector<float>(16, 0))},
                            {"k_proj.weight", "F32", {2, 4}, f32Bytes(std::vector<float>(8, 0))},
                            {"v_proj.weight", "F32", {2, 4}, f32Bytes(std::vector<float>(8, 0))}},
                           kTwoHeads)
            << "grouped-query attention";
        QTest::newRow("add_bias_kv") << safetensors({{"in_proj_weight", "F32", {12, 4}, in12x4},
                                                     {"bias_k", "F32", {1, 1, 4}, f32Bytes({0, 0, 0, 0})}},
                                                    kTwoHeads)
                                     << "add_bias_kv";
        QTest::newRow("gpt2 c_attn not 3E")
            << safetensors({{"h.0.attn.c_attn.weight", "F32", {4, 10}, f32Bytes(std::vector<float>(40, 0))}}, kTwoHeads)
            << "tensor 'h.0.attn.c_attn.weight' has shape (4, 10)";
        QTest::newRow("d_model not divisible by heads")
            << safetensors({{"in_proj_weight", "F32", {12, 4}, in12x4}}, QJsonObject{{"num_heads", "3"}})
            << "d_model 4 is not divisible by 3 heads";
        QTest::newRow("no num_heads anywhere")
            << safetensors({{"in_proj_weight", "F32", {12, 4}, in12x4}}) << "the number of heads is not known";
        std::vector<float> nan(48, 0.5f);
        nan[17] = std::numeric_limits<float>::quiet_NaN();
        QTest::newRow("NaN in weights") << safetensors({{"in_proj_weight", "F32", {12, 4}, f32Bytes(nan)}}, kTwoHeads)
                                        << "tensor 'in_proj_weight' contains NaN or infinite values";
        QTest::newRow("Inf in F16 bias")
            << safetensors({{"in_proj_weight", "F32", {12, 4}, in12x4},
                            {"in_proj_bias", "F16", {12}, u16Bytes({0x7C00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})}},
                           kTwoHeads)
            << "tensor 'in_proj_bias' contains NaN or infinite values";
        QTest::newRow("F64 beyond float32")
            << safetensors({{"in_proj_weight", "F64", {3, 1}, f64Bytes({1.0, 1e300, 1.0})}}, kTwoHeads)
            << "NaN or infinite";
        QTest::newRow("integer weights")
            << safetensors({{"in_proj_weight", "I64", {12, 4}, QByteArray(384, '\0')}}, kTwoHeads)
            << "tensor 'in_proj_weight' has dtype I64; attention weights must be F16, BF16, F32 or F64";
    }
    void rejects()
    {
        QFETCH(QByteArray, file);
        QFETCH(QString, reason);
        auto loaded = loadBytes(file);
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().startsWith("model.safetensors: "), qPrintable(loaded.error()));
        QVERIFY2(loaded.error().contains(reason), qPrintable(loaded.error()));
        QVERIFY2(!loaded.error().contains('\n'), "one line");
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
