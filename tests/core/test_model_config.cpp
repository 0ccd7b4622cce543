// config.json as the transformers configuration classes read it: the attribute_map aliases, the
// class defaults for keys that do not set a shape, and the options that are refused.
#include "core/model/ModelConfig.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

using namespace attn;

namespace {

const char* kGpt2Shapes = R"("vocab_size": 100, "n_positions": 64, "n_embd": 32, "n_layer": 2, "n_head": 4)";
const char* kBertShapes = R"("vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
                             "intermediate_size": 80, "max_position_embeddings": 64, "type_vocab_size": 2)";
const char* kDistilBertShapes =
    R"("vocab_size": 100, "max_position_embeddings": 64, "dim": 32, "n_layers": 2, "n_heads": 4, "hidden_dim": 80)";
const char* kLlamaShapes = R"("vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
                              "intermediate_size": 80)";

QByteArray config(const char* model_type, const char* shapes, const QByteArray& extra = {})
{
    return QByteArray("{\"model_type\": \"") + model_type + "\", " + shapes + (extra.isEmpty() ? "" : ", " + extra) +
           "}";
}

}  // namespace

class TestModelConfig : public QObject {
    Q_OBJECT

private slots:
    void gpt2DefaultsAreTheConfigClass()
    {
        auto c = ModelConfig::fromJson(config("gpt2", kGpt2Shapes));
        QVERIFY2(c, qPrintable(c.error()));
        QCOMPARE(c->architecture, ModelArchitecture::Gpt2);
        QCOMPARE(c->intermediate_size, 4 * 32);  // n_inner absent: 4 x n_embd
        QCOMPARE(c->layer_norm_eps, 1e-5);
        QCOMPARE(c->activation, Activation::GeluTanh);  // gelu_new
        QVERIFY(c->scale_attention);
        QVERIFY(c->causal);
        QVERIFY(c->tie_word_embeddings);
        QCOMPARE(c->num_kv_heads, 4);
        QCOMPARE(c->headDim(), 8);
    }

    void bertAndDistilBertDefaults()
    {
        auto bert = ModelConfig::fromJson(config("bert", kBertShapes));
        QVERIFY2(bert, qPrintable(bert.error()));
        QCOMPARE(bert->layer_norm_eps, 1e-12);
        QCOMPARE(bert->activation, Activation::Gelu);  // exact erf GELU
        QVERIFY(!bert->causal);
        QCOMPARE(bert->type_vocab_size, 2);
        QCOMPARE(bert->intermediate_size, 80);

        auto distil = ModelConfig::fromJson(config("distilbert", kDistilBertShapes));
        QVERIFY2(distil, qPrintable(distil.error()));
        QCOMPARE(distil->layer_norm_eps, 1e-12);  // fixed in transformers' DistilBERT code
        QCOMPARE(distil->activation, Activation::Gelu);
        QVERIFY(!distil->sinusoidal_positions);
        QCOMPARE(distil->hidden_size, 32);
        QCOMPARE(distil->intermediate_size, 80);
    }

    void aliases_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("positions");
        QTest::newRow("gpt2 attribute_map names")
            << config("gpt2", R"("vocab_size": 100, "max_position_embeddings": 48, "hidden_size": 24,
                                 "num_hidden_layers": 3, "num_attention_heads": 6)")
            << 24 << 3 << 6 << 48;
        // PretrainedConfig's attribute_map setter runs after the class's own assignment: the alias wins.
        QTest::newRow("gpt2 alias wins over n_embd")
            << config("gpt2", kGpt2Shapes, R"("hidden_size": 16, "num_attention_heads": 2)") << 16 << 2 << 2 << 64;
        QTest::newRow("distilbert attribute_map names")
            << config("distilbert", R"("vocab_size": 100, "max_position_embeddings": 64, "hidden_size": 40,
                                       "num_hidden_layers": 5, "num_attention_heads": 5, "hidden_dim": 80)")
            << 40 << 5 << 5 << 64;
    }
    void aliases()
    {
        QFETCH(QByteArray, json);
        auto c = ModelConfig::fromJson(json);
        QVERIFY2(c, qPrintable(c.error()));
        QTEST(c->hidden_size, "hidden");
        QTEST(c->num_layers, "layers");
        QTEST(c->num_heads, "heads");
        QTEST(c->max_positions, "positions");
    }

    void optionsThatChangeNothingOrAreComputed()
    {
        auto c = ModelConfig::fromJson(config("gpt2", kGpt2Shapes,
                                              R"("n_inner": null, "reorder_and_upcast_attn": true,
                                                 "scale_attn_weights": false, "activation_function": "relu",
                                                 "layer_norm_epsilon": 1e-6)"));
        QVERIFY2(c, qPrintable(c.error()));
        QCOMPARE(c->intermediate_size, 128);  // null: 4 x n_embd
        QVERIFY(!c->scale_attention);
        QCOMPARE(c->activation, Activation::Relu);
        QCOMPARE(c->layer_norm_eps, 1e-6);
        auto inner = ModelConfig::fromJson(config("gpt2", kGpt2Shapes, R"("n_inner": 50)"));
        QCOMPARE(inner->intermediate_size, 50);
    }

    void llamaFamilyDefaults()
    {
        auto llama = ModelConfig::fromJson(config("llama", kLlamaShapes));
        QVERIFY2(llama, qPrintable(llama.error()));
        QCOMPARE(llama->architecture, ModelArchitecture::Llama);
        QCOMPARE(llama->num_kv_heads, 4);  // absent: the number of heads
        QCOMPARE(llama->activation, Activation::Silu);
        QCOMPARE(llama->layer_norm_eps, 1e-6);  // rms_norm_eps
        QCOMPARE(llama->rope_theta, 10000.0);
        QCOMPARE(llama->rotary_dim, 8);
        QVERIFY(llama->causal);
        QVERIFY(!llama->tie_word_embeddings);
        QVERIFY(!llama->qkv_bias && !llama->out_bias);
        QCOMPARE(llama->sliding_window, 0);
        QVERIFY(llama->hasRotaryPositions());

        auto biased = ModelConfig::fromJson(config("llama", kLlamaShapes,
                                                   R"("attention_bias": true, "num_key_value_heads": 1,
                                                      "rope_scaling": {"rope_type": "llama3", "factor": 32.0,
                                                        "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                                        "original_max_position_embeddings": 8192})"));
        QVERIFY2(biased, qPrintable(biased.error()));
        QVERIFY(biased->qkv_bias && biased->out_bias);
        QCOMPARE(biased->num_kv_heads, 1);
        QCOMPARE(biased->rope_scaling.type, RopeScaling::Type::Llama3);
        QCOMPARE(biased->rope_scaling.factor, 32.0);
        QCOMPARE(biased->rope_scaling.original_max_position_embeddings, 8192);

        auto qwen = ModelConfig::fromJson(config("qwen2", kLlamaShapes, R"("num_key_value_heads": null)"));
        QVERIFY2(qwen, qPrintable(qwen.error()));
        QVERIFY(qwen->qkv_bias && !qwen->out_bias);  // Qwen2Attention: o_proj without bias
        QCOMPARE(qwen->num_kv_heads, 4);

        auto mistral = ModelConfig::fromJson(config("mistral", kLlamaShapes));
        QVERIFY2(mistral, qPrintable(mistral.error()));
        QCOMPARE(mistral->sliding_window, 4096);  // MistralConfig's default
        auto unwindowed = ModelConfig::fromJson(config("mistral", kLlamaShapes, R"("sliding_window": null)"));
        QCOMPARE(unwindowed->sliding_window, 0);

        auto neox = ModelConfig::fromJson(config("gpt_neox", kLlamaShapes, R"("num_attention_heads": 2)"));
        QVERIFY2(neox, qPrintable(neox.error()));
        QCOMPARE(neox->rotary_dim, 4);  // int(16 * 0.25)
        QVERIFY(neox->parallel_residual);
        QVERIFY(neox->qkv_bias && neox->out_bias);
        QCOMPARE(neox->activation, Activation::Gelu);
        QCOMPARE(neox->layer_norm_eps, 1e-5);
        QVERIFY(!neox->tie_word_embeddings);
        auto renamed = ModelConfig::fromJson(
            config("gpt_neox", kLlamaShapes, R"("partial_rotary_factor": 0.5, "rope_theta": 500)"));
        QVERIFY2(renamed, qPrintable(renamed.error()));
        QCOMPARE(renamed->rotary_dim, 4);  // int(8 * 0.5)
        QCOMPARE(renamed->rope_theta, 500.0);
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("not JSON") << QByteArray("{\"model_type\": ") << "not valid JSON";
        QTest::newRow("not an object") << QByteArray("[1, 2]") << "not a JSON object";
        QTest::newRow("no model_type") << QByteArray(R"({"n_embd": 32})") << "'model_type' is missing";
        QTest::newRow("unknown model_type") << config("t5", kGpt2Shapes) << "unknown model_type \"t5\"";
        QTest::newRow("llama without its shapes") << config("llama", kGpt2Shapes) << "'hidden_size' is missing";
        QTest::newRow("llama unknown rope type")
            << config("llama", kLlamaShapes, R"("rope_scaling": {"rope_type": "yarn", "factor": 4.0})")
            << "'rope_scaling': rope type \"yarn\" is not supported (supported: default, linear, llama3)";
        QTest::newRow("llama dynamic rope (old key)")
            << config("llama", kLlamaShapes, R"("rope_scaling": {"type": "dynamic", "factor": 2.0})")
            << "rope type \"dynamic\" is not supported";
        QTest::newRow("llama3 rope without its factors")
            << config("llama", kLlamaShapes, R"("rope_scaling": {"rope_type": "llama3", "factor": 8.0})")
            << "'rope_scaling': 'low_freq_factor' is missing";
        QTest::newRow("llama mlp_bias") << config("llama", kLlamaShapes, R"("mlp_bias": true)")
                                        << "'mlp_bias': true is not supported";
        QTest::newRow("llama head_dim not hidden / heads")
            << config("llama", kLlamaShapes, R"("head_dim": 16)") << "'head_dim': 16 is not supported";
        QTest::newRow("llama partial rotary") << config("llama", kLlamaShapes, R"("partial_rotary_factor": 0.5)")
                                              << "'partial_rotary_factor': 0.5 is not supported";
        QTest::newRow("kv heads not dividing the heads")
            << config("mistral", kLlamaShapes, R"("num_key_value_heads": 3)")
            << "the 4 attention heads are not divisible into 3 key/value heads";
        QTest::newRow("qwen2 sliding window") << config("qwen2", kLlamaShapes, R"("use_sliding_window": true)")
                                              << "'use_sliding_window': true is not supported";
        QTest::newRow("gpt_neox odd rotary features") << config("gpt_neox", kLlamaShapes, R"("rotary_pct": 0.375)")
                                                      << "rotates 3 features of each head, an odd number";
        QTest::newRow("missing heads") << config("gpt2", R"("vocab_size": 100, "n_positions": 64, "n_embd": 32,
                                                            "n_layer": 2)")
                                       << "'n_head' (or 'num_attention_heads') is missing";
        QTest::newRow("zero layers") << config("gpt2", kGpt2Shapes, R"("n_layer": 0)")
                                     << "'n_layer' must be a positive integer";
        QTest::newRow("negative alias") << config("gpt2", kGpt2Shapes, R"("hidden_size": -32)")
                                        << "'hidden_size' must be a positive integer";
        QTest::newRow("string size") << config("gpt2", kGpt2Shapes, R"("vocab_size": "100")")
                                     << "'vocab_size' must be a positive integer";
        QTest::newRow("fractional size") << config("gpt2", kGpt2Shapes, R"("n_positions": 64.5)")
                                         << "'n_positions' must be a positive integer";
        QTest::newRow("not divisible") << config("gpt2", kGpt2Shapes, R"("n_head": 5)")
                                       << "hidden size 32 is not divisible by the 5 attention heads";
        QTest::newRow("bert type_vocab_size missing")
            << config("bert", R"("vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2,
                                 "num_attention_heads": 4, "intermediate_size": 80, "max_position_embeddings": 64)")
            << "'type_vocab_size' is missing";
        QTest::newRow("inverse layer scaling")
            << config("gpt2", kGpt2Shapes, R"("scale_attn_by_inverse_layer_idx": true)")
            << "'scale_attn_by_inverse_layer_idx': true is not supported";
        QTest::newRow("gpt2 cross-attention") << config("gpt2", kGpt2Shapes, R"("add_cross_attention": true)")
                                              << "'add_cross_attention': true is not supported";
        QTest::newRow("bert relative positions")
            << config("bert", kBertShapes, R"("position_embedding_type": "relative_key")")
            << "'position_embedding_type': \"relative_key\" is not supported";
        QTest::newRow("bert decoder") << config("bert", kBertShapes, R"("is_decoder": true)")
                                      << "'is_decoder': true is not supported";
        QTest::newRow("unknown activation") << config("bert", kBertShapes, R"("hidden_act": "gelu_10")")
                                            << "'hidden_act': unknown activation function \"gelu_10\"";
        QTest::newRow("flag not a bool") << config("gpt2", kGpt2Shapes, R"("scale_attn_weights": "yes")")
                                         << "'scale_attn_weights' must be true or false";
        // Strings of the file are escaped in the message, which stays one printable line.
        QTest::newRow("control characters in model_type")
            << QByteArray(R"({"model_type": "t5\r\u0000"})") << "unknown model_type \"t5\\r\\u0000\"";
        QTest::newRow("control character in a string option")
            << config("bert", kBertShapes, R"("position_embedding_type": "absol\u0007")")
            << "'position_embedding_type': \"absol\\u0007\" is not supported";
        QTest::newRow("line break as a flag") << config("gpt2", kGpt2Shapes, R"("scale_attn_weights": "\n")")
                                              << "'scale_attn_weights' must be true or false, got \"\\n\"";
        QTest::newRow("epsilon not a number") << config("gpt2", kGpt2Shapes, R"("layer_norm_epsilon": "small")")
                                              << "'layer_norm_epsilon' must be a finite non-negative number";
    }
    void refusals()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        auto c = ModelConfig::fromJson(json);
        QVERIFY(!c);
        QVERIFY2(c.error().contains(message), qPrintable(c.error()));
        for (QChar ch : c.error())
            QVERIFY2(ch.unicode() >= 0x20 && ch.unicode() != 0x7f, qPrintable(c.error()));
    }
};

REGISTER_TEST_SUITE(TestModelConfig, QCoreApplication)
#include "test_model_config.moc"
