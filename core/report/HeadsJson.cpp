#include "core/report/HeadsJson.h"

namespace attn {
namespace {

void writeFoil(JsonWriter& json, const std::optional<int>& foil)
{
    json.key("foil");
    if (foil)
        json.value(*foil);
    else
        json.null();
}

void writeNumbers(JsonWriter& json, const double* values, size_t count)
{
    json.beginArray();
    for (size_t i = 0; i < count; ++i)
        json.value(values[i]);
    json.endArray();
}

void writeLens(JsonWriter& json, const LensResult& lens, const std::function<QString(int)>& token_text)
{
    json.key("logit_lens").beginObject();
    json.key("top").beginArray();
    for (int l = 0; l < lens.num_rows; ++l) {
        json.beginArray();
        for (int t = 0; t < lens.seq_len; ++t) {
            json.beginArray();
            for (const LensEntry& entry : lens.at(l, t).top) {
                json.beginObject();
                json.key("id").value(entry.id);
                json.key("token").value(token_text(entry.id));
                json.key("p").value(entry.p);
                json.endObject();
            }
            json.endArray();
        }
        json.endArray();
    }
    json.endArray();
    if (lens.tracked) {
        json.key("target").beginObject();
        json.key("id").value(*lens.tracked);
        json.key("p").beginArray();
        for (int l = 0; l < lens.num_rows; ++l) {
            json.beginArray();
            for (int t = 0; t < lens.seq_len; ++t)
                json.value(lens.at(l, t).tracked_p);
            json.endArray();
        }
        json.endArray();
        json.key("rank").beginArray();
        for (int l = 0; l < lens.num_rows; ++l) {
            json.beginArray();
            for (int t = 0; t < lens.seq_len; ++t)
                json.value(lens.at(l, t).tracked_rank);
            json.endArray();
        }
        json.endArray();
        json.endObject();
    }
    json.endObject();
}

void writeAttribution(JsonWriter& json, const AttributionResult& a)
{
    json.key("attribution").beginObject();
    json.key("position").value(a.position);
    json.key("target").value(a.tokens.target);
    writeFoil(json, a.tokens.foil);
    json.key("logit").value(a.logit);
    json.key("embed").value(a.embed);
    json.key("heads").beginArray();
    for (int l = 0; l < a.num_layers; ++l)
        writeNumbers(json, a.heads.data() + size_t(l) * size_t(a.num_heads), size_t(a.num_heads));
    json.endArray();
    json.key("attn_bias");
    writeNumbers(json, a.attn_bias.data(), a.attn_bias.size());
    json.key("mlp");
    writeNumbers(json, a.mlp.data(), a.mlp.size());
    json.key("final_bias").value(a.final_bias);
    json.endObject();
}

}  // namespace

void HeadsJson::write(JsonWriter& json, const HeadsReport& report, const std::function<QString(int)>& token_text)
{
    if (report.metric) {
        json.key("metric").beginObject();
        json.key("target").value(report.metric->tokens.target);
        writeFoil(json, report.metric->tokens.foil);
        json.key("position").value(report.metric->position);
        json.key("value").value(report.metric->value);
        json.endObject();
    }
    if (report.lens)
        writeLens(json, *report.lens, token_text);
    if (report.attribution)
        writeAttribution(json, *report.attribution);
    if (report.generated)
        json.key("generated").value(*report.generated);
    if (!report.ablated.empty()) {
        json.key("ablated").beginArray();
        for (const auto& [layer, head] : report.ablated)
            json.beginArray().value(layer).value(head).endArray();
        json.endArray();
    }
    if (const auto& scan = report.ablation_scan) {
        json.key("ablation_scan").beginArray();
        for (int l = 0; l < scan->num_layers; ++l)
            writeNumbers(json, scan->effects.data() + size_t(l) * size_t(scan->num_heads), size_t(scan->num_heads));
        json.endArray();
    }
    if (const auto& patching = report.patching) {
        json.key("patching").beginObject();
        json.key("site").value(ActivationPatching::siteName(patching->site));
        json.key("values").beginArray();
        for (int l = 0; l < patching->num_layers; ++l)
            writeNumbers(json, patching->values.data() + size_t(l) * size_t(patching->columns),
                         size_t(patching->columns));
        json.endArray().endObject();
    }
}

}  // namespace attn
