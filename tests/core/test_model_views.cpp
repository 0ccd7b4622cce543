// What the Model tab and the whole-model shapes compute without widgets: a head reduced to a
// thumbnail straight from the compact maps (exact at full size, max / mean of the cells under a
// pixel otherwise, masked pixels where a causal head sees nothing), the head metrics read from the
// maps, and the parameter counts of whole models from their configs against the published figures.
#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/AttentionThumbnail.h"
#include "core/analysis/HeadMetrics.h"
#include "core/analysis/ModelParameters.h"
#include "core/base/SplitMix64.h"
#include "core/model/AttentionMaps.h"
#include "core/model/ModelConfig.h"
#include "tests/support/Float32Bounds.h"
#include "tests/support/TestSuite.h"

#include <QtTest>

#include <cmath>

using namespace attn;
using namespace attn::testing;

namespace {

// Rows that sum to 1 (softmax of random scores), zero above the diagonal when causal.
Matrix randomHead(int seq_len, bool causal, std::uint64_t seed)
{
    SplitMix64 random(seed);
    Matrix weights = Matrix::Zero(seq_len, seq_len);  // (T, T)
    for (int i = 0; i < seq_len; ++i) {
        const int keys = causal ? i + 1 : seq_len;
        double sum = 0.0;
        for (int j = 0; j < keys; ++j) {
            weights(i, j) = float(std::exp(4.0 * random.uniform()));
            sum += weights(i, j);
        }
        for (int j = 0; j < keys; ++j)
            weights(i, j) = float(weights(i, j) / sum);
    }
    return weights;
}

struct Maps {
    AttentionMaps maps;
    std::vector<Matrix> heads;  // layer-major (L * H) x (T, T)
};

Maps randomMaps(int layers, int heads, int seq_len, bool causal)
{
    Maps out{AttentionMaps(layers, heads, seq_len, causal), {}};
    for (int l = 0; l < layers; ++l) {
        std::vector<Matrix> layer;
        for (int h = 0; h < heads; ++h) {
            layer.push_back(randomHead(seq_len, causal, std::uint64_t(100 * l + h + 1)));
            out.heads.push_back(layer.back());
        }
        out.maps.setLayer(l, std::move(layer));
    }
    return out;
}

ModelConfig config(const char* json)
{
    auto parsed = ModelConfig::fromJson(QByteArray(json));
    if (!parsed)
        qFatal("config: %s", qPrintable(parsed.error()));
    return parsed.value();
}

// The config.json files of the hub's checkpoints (the keys that matter).
constexpr const char* kGpt2Small = R"({"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12,
    "n_positions": 1024, "n_ctx": 1024, "vocab_size": 50257, "activation_function": "gelu_new"})";
constexpr const char* kBertBase = R"({"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12,
    "num_hidden_layers": 12, "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2,
    "vocab_size": 30522, "hidden_act": "gelu", "layer_norm_eps": 1e-12, "position_embedding_type": "absolute"})";
constexpr const char* kDistilBertBase = R"({"model_type": "distilbert", "dim": 768, "n_heads": 12, "n_layers": 6,
    "hidden_dim": 3072, "max_position_embeddings": 512, "vocab_size": 30522, "activation": "gelu",
    "sinusoidal_pos_embds": false})";
constexpr const char* kSmolLm2 = R"({"model_type": "llama", "hidden_size": 576, "intermediate_size": 1536,
    "num_attention_heads": 9, "num_hidden_layers": 30, "num_key_value_heads": 3, "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-05, "rope_theta": 100000, "tie_word_embeddings": true, "vocab_size": 49152,
    "hidden_act": "silu", "attention_bias": false})";
constexpr const char* kQwen25 = R"({"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864,
    "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2, "max_position_embeddings": 32768,
    "max_window_layers": 24, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
    "tie_word_embeddings": true, "use_sliding_window": false, "vocab_size": 151936, "hidden_act": "silu"})";
constexpr const char* kTinyLlama = R"({"model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632,
    "num_attention_heads": 32, "num_hidden_layers": 22, "num_key_value_heads": 4, "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0, "tie_word_embeddings": false,
    "vocab_size": 32000, "hidden_act": "silu"})";
constexpr const char* kPythia70m = R"({"model_type": "gpt_neox", "hidden_size": 512, "intermediate_size": 2048,
    "num_attention_heads": 8, "num_hidden_layers": 6, "max_position_embeddings": 2048, "rotary_pct": 0.25,
    "rotary_emb_base": 10000, "use_parallel_residual": true, "vocab_size": 50304, "tie_word_embeddings": false,
    "hidden_act": "gelu", "layer_norm_eps": 1e-05})";

}  // namespace

class TestModelViews : public QObject {
    Q_OBJECT

private slots:
    // At T x T pixels the thumbnail is the head, cell for cell, masked cells NaN.
    void fullSizeThumbnailIsTheHead_data()
    {
        QTest::addColumn<bool>("causal");
        QTest::newRow("causal") << true;
        QTest::newRow("bidirectional") << false;
    }
    void fullSizeThumbnailIsTheHead()
    {
        QFETCH(bool, causal);
        const Maps m = randomMaps(2, 3, 9, causal);
        for (ThumbnailReduction reduction : {ThumbnailReduction::Max, ThumbnailReduction::Mean}) {
            const AttentionThumbnail t = AttentionThumbnail::reduce(m.maps, 1, 2, 9, 9, reduction);
            const Matrix& head = m.heads[size_t(1 * 3 + 2)];
            for (int q = 0; q < 9; ++q)
                for (int k = 0; k < 9; ++k) {
                    if (causal && k > q)
                        QVERIFY(std::isnan(t.values(q, k)));
                    else
                        QCOMPARE(t.values(q, k), head(q, k));
                }
        }
    }

    // 10 tokens on 3 pixels: queries and keys split 0-2, 3-5, 6-9; each pixel the max (or mean)
    // of the visible cells under it, computed here by hand from the full matrix.
    void reducedPixelsAreMaxOrMeanOfTheirCells()
    {
        const Maps m = randomMaps(1, 1, 10, true);
        const Matrix& head = m.heads[0];
        const int edges[] = {0, 3, 6, 10};
        const AttentionThumbnail max = AttentionThumbnail::reduce(m.maps, 0, 0, 3, 3, ThumbnailReduction::Max);
        const AttentionThumbnail mean = AttentionThumbnail::reduce(m.maps, 0, 0, 3, 3, ThumbnailReduction::Mean);
        QCOMPARE(max.values.rows(), 3);
        QCOMPARE(max.values.cols(), 3);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                double high = -1.0, sum = 0.0;
                int count = 0;
                for (int q = edges[r]; q < edges[r + 1]; ++q)
                    for (int k = edges[c]; k < edges[c + 1] && k <= q; ++k) {
                        high = std::max(high, double(head(q, k)));
                        sum += head(q, k);
                        ++count;
                    }
                if (count == 0) {  // every cell above the diagonal: masked
                    QVERIFY(std::isnan(max.values(r, c)));
                    QVERIFY(std::isnan(mean.values(r, c)));
                    continue;
                }
                QCOMPARE(double(max.values(r, c)), high);
                // A float32 sum of `count` non-negative cells and its scaling by the count: within
                // gamma_{count + 2} of the exact mean (the reference sums in double).
                QVERIFY(std::abs(double(mean.values(r, c)) - sum / count) <= gammaOf(count + 2) * sum / count);
            }
    }

    // The scale leaves out causal row 0 (weight 1 by construction), also when it shares its pixel
    // row with other queries; with every row it is the largest pixel.
    void scaleTopLeavesOutOneKeyRows()
    {
        const Maps m = randomMaps(1, 1, 12, true);
        const Matrix& head = m.heads[0];
        const float rest = head.bottomRows(11).maxCoeff();
        QCOMPARE(head(0, 0), 1.0f);
        for (int pixels : {12, 4}) {
            const AttentionThumbnail t =
                AttentionThumbnail::reduce(m.maps, 0, 0, pixels, pixels, ThumbnailReduction::Max);
            QCOMPARE(t.top, 1.0);
            QCOMPARE(t.top_without_one_key_rows, double(rest));
        }
        const Maps one = randomMaps(1, 1, 1, false);  // T = 1: every query sees one key
        QCOMPARE(AttentionThumbnail::reduce(one.maps, 0, 0, 5, 5, ThumbnailReduction::Max).top_without_one_key_rows,
                 -1.0);
        // reduceAll: layer-major, the same as one head at a time.
        const Maps grid = randomMaps(2, 3, 40, false);
        const auto all = AttentionThumbnail::reduceAll(grid.maps, 7, 7, ThumbnailReduction::Mean);
        QCOMPARE(int(all.size()), 6);
        QCOMPARE(all[4].values, AttentionThumbnail::reduce(grid.maps, 1, 1, 7, 7, ThumbnailReduction::Mean).values);
    }

    // Mistral's sliding window: the keys W or more before a query are masked pixels (NaN, drawn
    // grey), as the keys after it are; one pixel per cell here.
    void thumbnailMasksOutsideTheSlidingWindow()
    {
        Maps m = randomMaps(1, 1, 10, true);
        m.maps.setSlidingWindow(3);
        const AttentionThumbnail thumbnail = AttentionThumbnail::reduce(m.maps, 0, 0, 10, 10, ThumbnailReduction::Max);
        for (int query = 0; query < 10; ++query)
            for (int key = 0; key < 10; ++key) {
                const float value = thumbnail.values(query, key);
                if (key > query || key < query - 2)
                    QVERIFY2(std::isnan(value), qPrintable(QStringLiteral("%1, %2").arg(query).arg(key)));
                else
                    QCOMPARE(value, m.heads[0](query, key));
            }
    }

    // The Model tab's aggregates: heads of any layers fused cell by cell (mean or max), with keys
    // hidden first (each head's rows renormalised), equal at full size to AttentionDisplay's
    // route over the full matrices (hideKeys on every head, then fuseHeads).
    void fusedThumbnailIsTheFusedHeadsWithKeysHidden_data()
    {
        QTest::addColumn<bool>("causal");
        QTest::newRow("causal") << true;
        QTest::newRow("bidirectional") << false;
    }
    void fusedThumbnailIsTheFusedHeadsWithKeysHidden()
    {
        QFETCH(bool, causal);
        const int seq_len = 9;
        const Maps m = randomMaps(3, 2, seq_len, causal);
        const std::vector<std::pair<int, int>> members = {{0, 1}, {1, 0}, {2, 1}};  // across layers
        for (const std::vector<int>& hidden_keys : {std::vector<int>{}, std::vector<int>{0, 4}}) {
            std::vector<bool> hidden(size_t(seq_len), false);
            for (int key : hidden_keys)
                hidden[size_t(key)] = true;
            std::vector<Matrix> shown;
            for (const auto& [layer, head] : members)
                shown.push_back(AttentionDisplay::hideKeys(m.heads[size_t(layer * 2 + head)], hidden));
            for (const auto& [fusion, display] : {std::pair{HeadFusion::Mean, AttentionDisplay::Fusion::Mean},
                                                 std::pair{HeadFusion::Max, AttentionDisplay::Fusion::Max}}) {
                const Matrix expected = AttentionDisplay::fuseHeads(shown, display);  // (T, T)
                const AttentionThumbnail t = AttentionThumbnail::reduceFused(
                    m.maps, members, fusion, seq_len, seq_len, ThumbnailReduction::Max, hidden_keys);
                for (int q = 0; q < seq_len; ++q)
                    for (int k = 0; k < seq_len; ++k) {
                        if (causal && k > q) {
                            QVERIFY(std::isnan(t.values(q, k)));
                            continue;
                        }
                        // Two float32 passes of the same computation: each renormalises the row
                        // without the hidden keys (a sum of seq_len terms and a division) and
                        // averages the members (a sum and a scaling), all terms non-negative:
                        // within 2 (gamma_{seq_len + 1} + gamma_{members + 2}) of the larger value.
                        const double size = std::max(double(t.values(q, k)), double(expected(q, k)));
                        const double bound =
                            2 * (gammaOf(seq_len + 1) + gammaOf(Eigen::Index(members.size()) + 2)) * size;
                        QVERIFY2(std::abs(t.values(q, k) - expected(q, k)) <= bound,
                                 qPrintable(QStringLiteral("%1, %2: %3 vs %4")
                                                .arg(q)
                                                .arg(k)
                                                .arg(t.values(q, k))
                                                .arg(expected(q, k))));
                    }
            }
            // One member is the head itself, hidden keys applied.
            const AttentionThumbnail single = AttentionThumbnail::reduce(m.maps, 2, 1, seq_len, seq_len,
                                                                         ThumbnailReduction::Mean, hidden_keys);
            const Matrix one = AttentionDisplay::hideKeys(m.heads[size_t(2 * 2 + 1)], hidden);
            for (int q = 0; q < seq_len; ++q)
                for (int k = 0; k <= (causal ? q : seq_len - 1); ++k)
                    QCOMPARE(single.values(q, k), one(q, k));
        }
    }

    // The metrics read row by row from the compact maps are those of the full matrix.
    void headMetricsFromTheMaps()
    {
        for (bool causal : {true, false}) {
            const Maps m = randomMaps(2, 2, 17, causal);
            for (int l = 0; l < 2; ++l)
                for (int h = 0; h < 2; ++h) {
                    const HeadMetric a = computeHeadMetrics(m.maps, l, h);
                    const HeadMetric b = computeHeadMetrics(m.heads[size_t(l * 2 + h)]);
                    QCOMPARE(a.entropy, b.entropy);
                    QCOMPARE(a.max, b.max);
                    QCOMPARE(a.diagonal, b.diagonal);
                    QCOMPARE(a.previous, b.previous);
                    QCOMPARE(a.first, b.first);
                }
        }
    }

    // The published sizes: GPT-2 small 124,439,808 (the hub's model card, sum of numel of
    // GPT2Model); bert-base-uncased BertModel 109,482,240 with its pooler, so 108,891,648 as run
    // here; distilbert-base-uncased 66,362,880.
    void parameterCountsOfPublishedModels()
    {
        const ModelParameterCounts gpt2 = ModelParameterCounts::of(config(kGpt2Small));
        QCOMPARE(gpt2.total(), std::int64_t(124439808));
        QCOMPARE(gpt2.word_embeddings, std::int64_t(50257) * 768);
        QCOMPARE(gpt2.position_embeddings, std::int64_t(1024) * 768);
        QCOMPARE(gpt2.perLayer(), std::int64_t(7087872));
        QCOMPARE(gpt2.final_norm, std::int64_t(1536));
        QCOMPARE(gpt2.pooler, std::int64_t(0));

        const ModelParameterCounts bert = ModelParameterCounts::of(config(kBertBase));
        QCOMPARE(bert.total(), std::int64_t(108891648));
        QCOMPARE(bert.total() + bert.pooler, std::int64_t(109482240));
        QCOMPARE(bert.token_type_embeddings, std::int64_t(2) * 768);
        QCOMPARE(bert.embedding_norm, std::int64_t(1536));
        QCOMPARE(bert.final_norm, std::int64_t(0));
        QCOMPARE(bert.perLayer(), gpt2.perLayer());  // the same block shapes at width 768

        const ModelParameterCounts distilbert = ModelParameterCounts::of(config(kDistilBertBase));
        QCOMPARE(distilbert.total(), std::int64_t(66362880));
        QCOMPARE(distilbert.num_layers, 6);
    }

    // The published sizes of the causal LMs (sum of numel of LlamaForCausalLM, Qwen2ForCausalLM,
    // GPTNeoXForCausalLM, lm_head / embed_out included when untied). Grouped-query attention:
    // SmolLM2's k_proj and v_proj are (576, 3 x 64 = 192), Qwen2.5's (896, 2 x 64 = 128) with biases.
    void parameterCountsOfRotaryModels()
    {
        const ModelParameterCounts smollm2 = ModelParameterCounts::of(config(kSmolLm2));
        QCOMPARE(smollm2.attention, std::int64_t(2) * 576 * 576 + 2 * 576 * 192);
        QCOMPARE(smollm2.output_head, std::int64_t(0));  // tied
        QCOMPARE(smollm2.withOutputHead(), std::int64_t(134515008));

        const ModelParameterCounts qwen = ModelParameterCounts::of(config(kQwen25));
        QCOMPARE(qwen.attention, std::int64_t(2) * 896 * 896 + 2 * 896 * 128 + 896 + 2 * 128);
        QCOMPARE(qwen.withOutputHead(), std::int64_t(494032768));

        const ModelParameterCounts tinyllama = ModelParameterCounts::of(config(kTinyLlama));
        QCOMPARE(tinyllama.output_head, std::int64_t(32000) * 2048);
        QCOMPARE(tinyllama.withOutputHead(), std::int64_t(1100048384));

        const ModelParameterCounts pythia = ModelParameterCounts::of(config(kPythia70m));
        QCOMPARE(pythia.position_embeddings, std::int64_t(0));
        QCOMPARE(pythia.withOutputHead(), std::int64_t(70426624));
        QCOMPARE(pythia.total(), std::int64_t(70426624) - std::int64_t(50304) * 512);
    }
};

REGISTER_TEST_SUITE(TestModelViews, QCoreApplication)
#include "test_model_views.moc"
