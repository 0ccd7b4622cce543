#include "core/report/ModelJsonReport.h"

#include "core/analysis/HeadScores.h"
#include "core/io/JsonWriter.h"

#include <algorithm>

namespace attn {

Status ModelJsonReport::write(const ModelConfig& config, const ModelRun& run, const QStringList& tokens,
                              const std::vector<TokenPrediction>& predictions,
                              const std::function<QString(int)>& token_text,
                              const AttentionRollout::Options& rollout_options, QIODevice& device,
                              const HeadsReport& heads)
{
    auto rollout = AttentionRollout::compute(run.attention, rollout_options);  // (T, T)
    if (!rollout)
        return Error{QStringLiteral("rollout: %1").arg(rollout.error())};
    const auto failed = [&device] { return Error{QStringLiteral("cannot write: %1").arg(device.errorString())}; };
    JsonWriter json;
    json.streamTo(device);  // a chunk at a time: the attention maps of every layer are large
    json.beginObject();
    json.key("model").beginObject();
    json.key("model_type").value(config.model_type);
    json.key("num_layers").value(config.num_layers);
    json.key("num_heads").value(config.num_heads);
    json.key("num_kv_heads").value(config.num_kv_heads);
    json.key("head_dim").value(config.headDim());
    json.key("hidden_size").value(config.hidden_size);
    json.key("vocab_size").value(config.vocab_size);
    json.key("causal").value(config.causal);
    json.endObject();
    json.key("tokens").array(tokens);
    json.key("token_ids").array(run.token_ids);

    const AttentionMaps& maps = run.attention;
    RowVector row(maps.seqLen());  // one query's weights, the zeros a causal map does not store filled in
    json.key("attention").beginArray();
    for (int l = 0; l < maps.numLayers(); ++l) {
        json.beginArray();
        for (int h = 0; h < maps.numHeads(); ++h) {
            json.beginArray();  // (T, T)
            for (int i = 0; i < maps.seqLen(); ++i) {
                const int stored = maps.rowLength(i);
                std::copy_n(maps.row(l, h, i), stored, row.data());
                row.tail(maps.seqLen() - stored).setZero();
                json.row(row.data(), row.size());
            }
            json.endArray();
            if (!json.ok())
                return failed();
        }
        json.endArray();
    }
    json.endArray();
    if (!heads.value_norms.empty()) {
        // ||A_ij f^h(x_j)|| = A_ij ||f^h(x_j)||: the weights' rows times the layer's value norms.
        json.key("attention_norms").beginArray();
        for (int l = 0; l < maps.numLayers(); ++l) {
            json.beginArray();
            for (int h = 0; h < maps.numHeads(); ++h) {
                const auto norms = heads.value_norms[size_t(l)].row(h);  // (T)
                json.beginArray();
                for (int i = 0; i < maps.seqLen(); ++i) {
                    const int stored = maps.rowLength(i);
                    std::copy_n(maps.row(l, h, i), stored, row.data());
                    row.tail(maps.seqLen() - stored).setZero();
                    row.array() *= norms.array();
                    json.row(row.data(), row.size());
                }
                json.endArray();
                if (!json.ok())
                    return failed();
            }
            json.endArray();
        }
        json.endArray();
    }
    json.key("last_hidden_state").matrix(run.last_hidden_state);
    if (!json.ok())
        return failed();

    json.key("rollout").beginArray();
    for (int i = 0; i < rollout->rows(); ++i) {
        json.beginArray();
        for (int j = 0; j < rollout->cols(); ++j)
            json.value((*rollout)(i, j));
        json.endArray();
    }
    json.endArray();
    const std::vector<HeadScore> scores = HeadScores::compute(maps, run.token_ids);  // (L x H)
    json.key("head_scores").beginArray();
    for (int l = 0; l < maps.numLayers(); ++l) {
        json.beginArray();
        for (int h = 0; h < maps.numHeads(); ++h) {
            const HeadScore& score = scores[size_t(l) * size_t(maps.numHeads()) + size_t(h)];
            json.beginObject();
            json.key("previous").value(score.previous);
            json.key("duplicate").value(score.duplicate);
            json.key("induction").value(score.induction);
            json.key("entropy").value(score.entropy);
            json.key("first").value(score.first);
            json.endObject();
        }
        json.endArray();
    }
    json.endArray();

    if (!predictions.empty()) {
        json.key("top5").beginArray();
        for (const TokenPrediction& prediction : predictions) {
            QStringList texts;
            for (int id : prediction.ids)
                texts << token_text(id);
            json.beginObject();
            json.key("position").value(prediction.position);
            json.key("ids").array(prediction.ids);
            json.key("tokens").array(texts);
            json.key("logits").beginArray();
            for (float logit : prediction.logits)
                json.value(logit);
            json.endArray();
            json.endObject();
            if (!json.ok())
                return failed();
        }
        json.endArray();
    }
    HeadsJson::write(json, heads, token_text);
    json.endObject();
    if (!json.finish() || device.write("\n", 1) != 1)
        return failed();
    return {};
}

}  // namespace attn
