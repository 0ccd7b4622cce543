// safetensors: a refusal, naming the file and the reason on one line, for every check of the header
// and of the attention tensors.

#include "tests/core/SafetensorsTestFiles.h"
#include "tests/support/TestSuite.h"

#include <cmath>
#include <limits>

using namespace attn;
using namespace attn::testing;

class TestSafetensorsRefusals : public QObject {
    Q_OBJECT

private slots:
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

REGISTER_TEST_SUITE(TestSafetensorsRefusals, QCoreApplication)
#include "test_safetensors_refusals.moc"
