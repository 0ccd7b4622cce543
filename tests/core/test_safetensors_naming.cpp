// safetensors weights under every naming scheme (nn.MultiheadAttention, separate projections under
// a prefix, GPT-2's Conv1D with layer selection), optional biases and output, and num_heads from
// the metadata or an override.

#include "tests/core/SafetensorsTestFiles.h"
#include "tests/support/TestSuite.h"

using namespace attn;
using namespace attn::testing;

class TestSafetensorsNaming : public QObject {
    Q_OBJECT

private slots:
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
};

REGISTER_TEST_SUITE(TestSafetensorsNaming, QCoreApplication)
#include "test_safetensors_naming.moc"
