#include "core/io/SessionFields.h"

namespace attn {
namespace {

using T = SessionValueType;

constexpr double kMaxDimension = 1 << 20;
constexpr double kMaxIndex = 1 << 30;
constexpr double kMaxSeed = 9007199254740992.0;  // 2^53: every integer up to it is exact in JSON's numbers
constexpr double kMaxText = 1 << 22;             // the window's sentence field holds as much
constexpr int kMaxIds = 1 << 20;

// clang-format off
constexpr SessionField kRows[] = {
    // key              type              option             window
    {"model",           T::Folder,        "model",           "the model folder (File › Open model)", 0, 0, nullptr, 0, "weights|identity"},
    {"weights",         T::File,          "weights",         "the weight file (File › Open weights)", 0, 0, nullptr, 0, "model|identity"},
    {"identity",        T::Flag,          "identity",        "Settings: identity weights", 0, 0, nullptr, 0, "model|weights"},
    {"d_model",         T::Integer,       "d-model",         "Settings: d_model", 1, kMaxDimension},
    {"heads",           T::Integer,       "heads",           "Settings: heads", 1, kMaxDimension},
    {"input_dim",       T::Integer,       "input-dim",       "Settings: input dimension", 1, kMaxDimension},
    {"seed",            T::Integer,       "seed",            "Settings: seed", 0, kMaxSeed},
    {"causal",          T::Flag,          "causal",          "Model › Causal mask", 0, 0},
    {"scale",           T::Text,          "scale",           "Settings: scale", 0, 64},
    {"no_positional",   T::Flag,          "no-positional",   "Settings: positional encoding off", 0, 0},
    {"sentence",        T::Text,          "sentence",        "the sentence field (Text)", 0, kMaxText, nullptr, 0, "token-ids|input|induction-probe"},
    {"token_ids",       T::IntegerList,   "token-ids",       "the sentence field (Token ids)", 0, kMaxIndex, nullptr, kMaxIds, "sentence|input|induction-probe"},
    {"input",           T::File,          "input",           "-", 0, 0, nullptr, 0, "sentence|token-ids"},
    {"tokens",          T::Text,          "tokens",          "-", 0, kMaxText, nullptr, 0, "sentence|token-ids"},
    {"kv_sentence",     T::Text,          "kv-sentence",     "the keys' sentence field", 0, kMaxText, nullptr, 0, "kv-input"},
    {"kv_input",        T::File,          "kv-input",        "-", 0, 0, nullptr, 0, "kv-sentence"},
    {"pad_keys",        T::IntegerList,   "pad-keys",        "the padded keys (token chips)", 0, kMaxIndex, nullptr, kMaxIds},
    {"layer",           T::Integer,       "layer",           "the layer chooser", 0, kMaxDimension},
    {"head",            T::Integer,       "head",            "One head's head", 0, kMaxDimension},
    {"compare",         T::IntegerList,   "compare",         "-", 0, kMaxDimension, nullptr, 2},
    {"view",            T::Text,          "view",            "the tab shown", 0, 32},
    {"color_scale",     T::Choice,        "color-scale",     "View › Heatmap: colour scale", 0, 0, "linear|log|percentile|all-cells|per-row"},
    {"hide_tokens",     T::IntegerList,   "hide-tokens",     "the hidden tokens (token chips)", 0, kMaxIndex, nullptr, kMaxIds},
    {"top_mass",        T::Number,        "top-mass",        "View › Heatmap: top mass", 0, 100},
    {"aggregate_heads", T::Choice,        "aggregate-heads", "View › Heatmap: aggregate head", 0, 0, "mean|max"},
    {"reduce",          T::Choice,        "reduce",          "View › Heatmap: reduction", 0, 0, "max|mean"},
    {"metric",          T::Text,          "metric",          "the Lens tab's target token", 0, 1024},
    {"position",        T::Integer,       "position",        "-", 0, kMaxIndex},
    {"logit_lens",      T::Flag,          "logit-lens",      "-", 0, 0},
    {"top_k",           T::Integer,       "top-k",           "-", 1, 100},
    {"attribution",     T::Flag,          "attribution",     "-", 0, 0},
    {"attention_kind",  T::Choice,        "attention-kind",  "View › Heatmap: value norms", 0, 0, "weights|norms"},
    {"rollout_fusion",  T::Choice,        "rollout-fusion",  "-", 0, 0, "mean|max|min"},
    {"residual_weight", T::Number,        "residual-weight", "-", 0, 1},
    {"ablate",          T::Text,          "ablate",          "-", 0, 1 << 16},
    {"ablation",        T::Choice,        "ablation",        "-", 0, 0, "zero|mean"},
    {"ablation_scan",   T::Flag,          "ablation-scan",   "-", 0, 0},
    {"patch_from",      T::Text,          "patch-from",      "-", 0, kMaxText, nullptr, 0, "patch-from-ids"},
    {"patch_from_ids",  T::IntegerList,   "patch-from-ids",  "-", 0, kMaxIndex, nullptr, kMaxIds, "patch-from"},
    {"patch_site",      T::Choice,        "patch-site",      "-", 0, 0, "resid|attn|mlp|heads"},
    {"generate",        T::Integer,       "generate",        "-", 1, 4096},
    {"temperature",     T::Number,        "temperature",     "-", 0, 1e6},
    {"sample_seed",     T::Integer,       "sample-seed",     "-", 0, kMaxSeed},
    {"sample_top_k",    T::Integer,       "sample-top-k",    "-", 1, kMaxIndex},
    {"sample_top_p",    T::Number,        "sample-top-p",    "-", 0, 1},
};
// clang-format on

}  // namespace

std::span<const SessionField> SessionFields::rows()
{
    return kRows;
}

const SessionField* SessionFields::find(QStringView key)
{
    for (const SessionField& row : kRows)
        if (key == QLatin1StringView(row.key))
            return &row;
    return nullptr;
}

const SessionField* SessionFields::findOption(QStringView option)
{
    for (const SessionField& row : kRows)
        if (option == QLatin1StringView(row.option))
            return &row;
    return nullptr;
}

}  // namespace attn
