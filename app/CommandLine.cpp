#include "app/CommandLine.h"

#include "app/SessionOptions.h"

#include "core/io/OutputPath.h"
#include "core/model/TokenIdList.h"
#include "core/pipeline/MemoryPlan.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QRegularExpression>

#include <limits>

namespace attn {
namespace {

constexpr int kMaxPictureSide = 16384;

Result<int> positiveInt(const QString& option, const QString& text, int minimum = 1)
{
    bool ok = false;
    const qlonglong value = text.trimmed().toLongLong(&ok);
    if (!ok || value < minimum || value > std::numeric_limits<int>::max())
        return Error{
            QStringLiteral("%1: expected %2 integer, got '%3'")
                .arg(option, minimum == 0 ? QStringLiteral("a non-negative") : QStringLiteral("a positive"), text)};
    return int(value);
}

// --model takes the architecture, its sizes and its input from the folder: options that would set
// them otherwise are refused rather than ignored.
Status checkModelOptions(const QCommandLineParser& parser, const CommandLineOptions& options)
{
    for (const char* other : {"weights", "input", "d-model", "heads", "input-dim", "seed", "identity", "causal",
                              "scale", "no-positional", "tokens", "kv-sentence", "kv-input", "pad-keys"})
        if (parser.isSet(QLatin1String(other)))
            return Error{QStringLiteral("--model: cannot be combined with --%1 (the model folder defines it)")
                             .arg(QLatin1String(other))};
    if (parser.isSet("token-ids") && parser.isSet("sentence"))
        return Error{QStringLiteral("--token-ids: cannot be combined with --sentence")};
    for (const char* input : {"sentence", "token-ids"})
        if (parser.isSet("induction-probe") && parser.isSet(QLatin1String(input)))
            return Error{QStringLiteral("--induction-probe: cannot be combined with --%1 (it makes the input)")
                             .arg(QLatin1String(input))};
    if (!options.example.isEmpty())
        return Error{QStringLiteral("--model: cannot be combined with --example")};
    return {};
}

// An output path checked before anything is computed, so a bad one writes nothing:
// "--export out.bmp: unknown extension ...".
Status checkOutput(const QString& option, const QString& path, const QStringList& extensions)
{
    if (Status where = OutputPath::check(path, extensions); !where)
        return Error{QStringLiteral("%1%2%3").arg(option, path.isEmpty() ? QStringLiteral(": ") : QStringLiteral(" "),
                                                  where.error())};
    return {};
}

}  // namespace

QString CommandLine::optionFor(SettingField field)
{
    switch (field) {
        case SettingField::Sentence:
            return QStringLiteral("--sentence");
        case SettingField::DModel:
            return QStringLiteral("--d-model");
        case SettingField::Heads:
            return QStringLiteral("--heads");
        case SettingField::InputDim:
            return QStringLiteral("--input-dim");
        case SettingField::Seed:
            return QStringLiteral("--seed");
        case SettingField::Weights:
            return QStringLiteral("--weights");
        case SettingField::Layer:
            return QStringLiteral("--layer");
        case SettingField::Scale:
            return QStringLiteral("--scale");
        case SettingField::KvSentence:
            return QStringLiteral("--kv-sentence");
        case SettingField::PadKeys:
            return QStringLiteral("--pad-keys");
        case SettingField::Model:
            return QStringLiteral("--model");
    }
    return QString();
}

QString CommandLine::helpText()
{
    return QStringLiteral(
               "Usage: attention-lab [options]\n"
               "Shows what multi-head attention does to a sentence. Without --json or --export it opens the window.\n"
               "\n"
               "Input\n"
               "  --sentence TEXT        sentence to tokenize (default: \"%1\")\n"
               "  --input FILE.npy       T x d_in matrix used as token vectors instead of the sentence\n"
               "  --tokens A,B,C         labels for the rows of --input\n"
               "  --token-ids 1,2,3      token ids for --model, used as they are (instead of --sentence)\n"
               "  --kv-sentence TEXT     cross-attention: keys and values from this sentence, queries from --sentence\n"
               "  --kv-input FILE.npy    cross-attention: keys and values from this T_kv x d_in matrix\n"
               "  --pad-keys I,J,...     0-based key positions masked as padding (weight exactly 0)\n"
               "Model\n"
               "  --d-model N            model width (default 512)\n"
               "  --heads N              number of heads (default 8; with --weights: the file's)\n"
               "  --input-dim N          input width (default: d-model)\n"
               "  --seed N               seed of the random weights and the token embeddings (default 0)\n"
               "  --weights FILE         .safetensors, .npz or .json weights\n"
               "  --model DIR            a whole model from a Hugging Face folder (config.json, model.safetensors\n"
               "                         and the tokenizer): GPT-2, BERT, DistilBERT, Llama, Qwen2, Mistral\n"
               "                         or GPT-NeoX; the attention of every layer\n"
               "  --identity             identity weights (scores = raw dot products of the inputs)\n"
               "  --layer N              layer of a multi-layer file or model (default 0)\n"
               "  --causal               causal (decoder) mask: query i sees keys 0..i\n"
               "  --scale sqrt|none|X    divisor of the scores (default sqrt(head_dim))\n"
               "  --no-positional        no sinusoidal positional encoding\n"
               "Output (headless)\n"
               "  --json FILE|-          results as JSON\n"
               "  --export FILE          picture of a view: .png, .svg or .pdf\n"
               "  --view V               grid (default), head, compare, shapes or lines (of --head);\n"
               "                         model: every layer x head of --model as one grid;\n"
               "                         model-shapes: the blocks of --model, each tensor with its shape;\n"
               "                         rollout: attention rollout of --model across its layers;\n"
               "                         qk: the queries and keys of --head in one scatter;\n"
               "                         lens: the logit lens of --model (--top-k, --metric's token);\n"
               "                         attribution: --metric at --position split into the parts of --model;\n"
               "                         ablation: --metric's change as each head of --model is ablated (--ablation)\n"
               "  --head N               head for --view head, lines or shapes (default 0)\n"
               "  --compare A,B          heads for --view compare (default 0,1)\n"
               "  --size WxH             PNG size in pixels (default 1200x900)\n"
               "  --batch N              batch size drawn in the shape diagram (default 1)\n"
               "  --color-scale S        heatmap colours: linear (default), log, percentile (clipped at the 99th),\n"
               "                         all-cells or per-row\n"
               "  --hide-tokens I,J,...  0-based key positions hidden in the pictures, each row renormalised\n"
               "  --top-mass X           per query row only the strongest keys up to X % of its weight (others "
               "dimmed)\n"
               "  --aggregate-heads F    grid: an extra head of the mean or max over the heads; --view model:\n"
               "                         also each head across the layers, and all of them (mean|max)\n"
               "  --reduce R             a heatmap with more cells than pixels: each pixel shows the max\n"
               "                         (default) or the mean of the cells under it (max|mean)\n"
               "  --rollout-fusion F     with --model: how --json's rollout fuses each layer's heads (mean|max|min,\n"
               "                         default mean)\n"
               "  --residual-weight W    with --model: the rollout's residual weight, 0 to 1 (default 0.5)\n"
               "  --mark-heads S         --view model: frame every head by its score S (previous, duplicate,\n"
               "                         induction or first)\n"
               "  --sort-heads S         --view model: draw each layer's heads sorted by their score S,\n"
               "                         highest first (previous, duplicate, induction, entropy or first)\n"
               "  --induction-probe N    with --model: the input is N random token ids given twice, which\n"
               "                         makes induction heads stand out (head_scores, --view model)\n"
               "  --metric T[,F]         with --model: --json's \"metric\", the logit of token T at --position,\n"
               "                         or logit(T) - logit(F); a token is an id or a vocabulary string (Ġcat)\n"
               "  --position P           with --model: the 0-based token position of --metric and --attribution\n"
               "                         (default: the last token)\n"
               "  --logit-lens           with --model: --json's \"logit_lens\", each layer's hidden state read by\n"
               "                         the model's own head: the top --top-k tokens per layer and position\n"
               "  --top-k K              tokens per cell of --logit-lens and --view lens, 1 to 100 (default 5)\n"
               "  --attribution          with --model and --metric, pre-norm models: --json's \"attribution\",\n"
               "                         the metric split into embeddings, every head, biases and MLPs\n"
               "  --generate N           with --model, a causal model: append up to N tokens (1 to 4096), each\n"
               "                         the most likely (ties: the lower id), stopping after eos_token_id\n"
               "                         (generation_config.json, else config.json); everything written or\n"
               "                         drawn then describes the final sequence, and --json adds \"generated\"\n"
               "  --temperature X        with --generate: sample instead, logits / X (X > 0, default 1)\n"
               "  --sample-seed S        with --generate: sample, reproducibly for the seed S (default 0)\n"
               "  --sample-top-k K       with --generate: sample among the K most likely tokens\n"
               "  --sample-top-p P       with --generate: sample among the most likely tokens whose\n"
               "                         probabilities add up to P (0 < P <= 1)\n"
               "  --attention-kind K     weights (default) or norms: --json adds \"attention_norms\", each weight\n"
               "                         times the norm of its value vector through the output projection;\n"
               "                         --export draws the norms in every --view that draws attention\n"
               "  --save-session FILE    write the state these options give (model or weights, input, layer, head,\n"
               "                         view, heatmap options, metric) as a session file, once the run succeeded\n"
               "  --session FILE         the options a session file holds; options given beside it replace its values\n"
               "  --ablate L:H[,L:H...]  with --model: those heads' outputs z (before the output projection)\n"
               "                         replaced by zeros or their mean over the positions (--ablation);\n"
               "                         everything then describes the ablated run, --json adds \"ablated\"\n"
               "  --ablation M           zero (default) or mean\n"
               "  --ablation-scan        with --model and --metric: --json's \"ablation_scan\", L x H, the metric\n"
               "                         with that one head ablated minus the plain run's\n"
               "  --patch-from TEXT      with --model and --metric: --json's \"patching\", activation patching\n"
               "                         from this clean input (as many tokens as the main, corrupted one)\n"
               "  --patch-from-ids 1,2,3 the clean input as token ids (instead of --patch-from)\n"
               "  --patch-site S         where --patch-from patches: resid (default), attn, mlp or heads;\n"
               "                         values (m_patched - m_corrupt) / (m_clean - m_corrupt), L x T or L x H\n"
               "  --json-trace           --json also holds the input X, Q, K, V and the scaled, masked scores\n"
               "  --memory-budget SIZE   memory a request may take, e.g. 2G or 800M (default: half the\n"
               "                         machine's memory); a larger one is refused, saying what would fit\n"
               "Window\n"
               "  --tab T                tab shown: grid, head, compare, lines, shapes, walkthrough, model,\n"
               "                         rollout, qk, lens, attribution, ablation or generate\n"
               "  --screenshot FILE.png  open the window, save it as a PNG once drawn, and exit\n"
               "                         (window size: --size, default 1400x900)\n"
               "  --example toy          show the toy 4-dimensional example (Examples menu)\n"
               "  -h, --help             this text\n"
               "  --version              the version\n")
        .arg(RunSettings::defaultSentence());
}

Result<CommandLineOptions> CommandLine::parse(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QStringList valued = {
        "sentence",        "input",         "tokens", "d-model",   "heads",       "input-dim",   "seed",
        "weights",         "layer",         "scale",  "json",      "export",      "view",        "head",
        "compare",         "size",          "batch",  "tab",       "screenshot",  "example",     "kv-sentence",
        "kv-input",        "pad-keys",      "model",  "token-ids", "color-scale", "hide-tokens", "top-mass",
        "aggregate-heads", "memory-budget", "reduce", "rollout-fusion", "residual-weight", "induction-probe", "mark-heads",
        "sort-heads"};
    for (const QString& name : valued)
        parser.addOption(QCommandLineOption(name, {}, QStringLiteral("value")));
    for (const char* flag : {"causal", "identity", "no-positional", "help", "version", "json-trace"})
        parser.addOption(QCommandLineOption(QString::fromLatin1(flag)));
    for (const char* const* name = HeadsCommandLine::kValued; *name; ++name)
        parser.addOption(QCommandLineOption(QString::fromLatin1(*name), {}, QStringLiteral("value")));
    for (const char* const* name = HeadsCommandLine::kFlags; *name; ++name)
        parser.addOption(QCommandLineOption(QString::fromLatin1(*name)));
    for (const char* const* table :
         {GenerationCommandLine::kValued, SessionCommandLine::kValued, InterventionCommandLine::kValued,
          PatchingCommandLine::kValued})
        for (const char* const* name = table; *name; ++name)
            parser.addOption(QCommandLineOption(QString::fromLatin1(*name), {}, QStringLiteral("value")));
    for (const char* const* name = InterventionCommandLine::kFlags; *name; ++name)
        parser.addOption(QCommandLineOption(QString::fromLatin1(*name)));
    parser.addOption(QCommandLineOption(QStringLiteral("h")));

    if (!parser.parse(arguments))
        return Error{parser.errorText()};
    if (!parser.positionalArguments().isEmpty())
        return Error{QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first())};
    for (const QString& name : parser.optionNames()) {
        if (parser.optionNames().count(name) > 1)
            return Error{QStringLiteral("--%1 is given more than once").arg(name)};
    }
    // --session FILE: its values are options placed before the others, which replace them.
    if (parser.isSet("session")) {
        auto expanded = SessionCommandLine::expanded(arguments, parser);
        if (!expanded)
            return Error{expanded.error()};
        return parse(*expanded);
    }

    CommandLineOptions options;
    options.show_help = parser.isSet("help") || parser.isSet("h");
    options.show_version = parser.isSet("version");
    RunSettings& config = options.config;

    if (parser.isSet("sentence")) {
        options.sentence = parser.value("sentence");
        if (options.sentence.trimmed().isEmpty())
            return Error{QStringLiteral("--sentence: the sentence is empty")};
    }
    if (parser.isSet("input"))
        options.input_path = parser.value("input");
    if (parser.isSet("tokens")) {
        if (options.input_path.isEmpty())
            return Error{QStringLiteral("--tokens: labels only go with --input")};
        options.token_labels = parser.value("tokens").split(u',');
    }
    if (parser.isSet("kv-sentence") && parser.isSet("kv-input"))
        return Error{QStringLiteral("--kv-sentence: cannot be combined with --kv-input (one second input)")};
    if (parser.isSet("kv-sentence")) {
        options.kv_sentence = parser.value("kv-sentence");
        if (options.kv_sentence.trimmed().isEmpty())
            return Error{QStringLiteral("--kv-sentence: the sentence is empty")};
    }
    if (parser.isSet("kv-input")) {
        options.kv_input_path = parser.value("kv-input");
        if (!QFileInfo(options.kv_input_path).isFile())
            return Error{QStringLiteral("--kv-input %1: no such file").arg(options.kv_input_path)};
    }
    if (parser.isSet("pad-keys")) {
        const QString text = parser.value("pad-keys");
        static const QRegularExpression position(QStringLiteral("^\\s*\\d{1,9}\\s*$"));
        for (const QString& part : text.split(u',')) {
            if (!position.match(part).hasMatch())
                return Error{QStringLiteral("--pad-keys: expected 0-based key positions I,J,..., got '%1'").arg(text)};
            config.padded_keys.append(part.trimmed().toInt());
        }
    }
    auto readInt = [&](const char* name, int& target, int minimum = 1) -> Status {
        if (!parser.isSet(name))
            return {};
        auto value = positiveInt(QStringLiteral("--%1").arg(QLatin1String(name)), parser.value(name), minimum);
        if (!value)
            return Error{value.error()};
        target = *value;
        return {};
    };
    if (Status s = readInt("d-model", config.d_model); !s)
        return Error{s.error()};
    if (Status s = readInt("heads", config.num_heads); !s)
        return Error{s.error()};
    if (Status s = readInt("input-dim", config.input_dim); !s)
        return Error{s.error()};
    if (Status s = readInt("layer", config.layer, 0); !s)
        return Error{s.error()};
    if (Status s = readInt("head", options.head, 0); !s)
        return Error{s.error()};
    if (Status s = readInt("batch", options.batch); !s)
        return Error{s.error()};
    options.heads_given = parser.isSet("heads");
    if (parser.isSet("seed")) {
        bool ok = false;
        const QString text = parser.value("seed").trimmed();
        config.seed = text.toULongLong(&ok);
        if (!ok || text.startsWith(u'-') || text.startsWith(u'+'))
            return Error{QStringLiteral("--seed: expected a non-negative integer, got '%1'").arg(parser.value("seed"))};
    }
    if (parser.isSet("scale")) {
        auto scale = ScaleSetting::parse(parser.value("scale"));
        if (!scale)
            return Error{QStringLiteral("--scale: %1").arg(scale.error())};
        config.scale = *scale;
    }
    config.causal = parser.isSet("causal");
    if (config.causal && options.isCross())
        return Error{
            QStringLiteral("--causal: cannot be combined with %1 (the causal mask needs self-attention)")
                .arg(parser.isSet("kv-sentence") ? QStringLiteral("--kv-sentence") : QStringLiteral("--kv-input"))};
    config.positional_encoding = !parser.isSet("no-positional");
    if (parser.isSet("weights") && parser.isSet("identity"))
        return Error{QStringLiteral("--identity: cannot be combined with --weights")};
    if (parser.isSet("identity"))
        config.weight_source = RunSettings::WeightSource::Identity;
    if (parser.isSet("weights")) {
        config.weight_source = RunSettings::WeightSource::File;
        config.weights_file = parser.value("weights");
        config.file_num_heads = options.heads_given ? config.num_heads : 0;
        if (!QFileInfo(config.weights_file).isFile())
            return Error{QStringLiteral("--weights %1: no such file").arg(config.weights_file)};
    } else if (parser.isSet("layer") && config.layer != 0 && !parser.isSet("model")) {
        return Error{QStringLiteral("--layer: only a weight file or a model has layers")};
    }
    if (std::optional<SettingError> invalid = config.validate())
        return Error{QStringLiteral("%1: %2").arg(optionFor(invalid->field), invalid->message)};

    if (parser.isSet("view")) {
        const QString name = parser.value("view");
        const std::optional<View> model_view = ViewRegistry::fromModelKey(name);
        options.model_chain = model_view.has_value();
        const std::optional<View> view = model_view ? model_view : viewFromKey(name);
        if (!view || !ViewRegistry::row(*view).picture)
            return Error{QStringLiteral("--view: expected %1, got '%2'")
                             .arg(joinedAlternatives(ViewRegistry::exportKeys()), name)};
        options.view = *view;
    }
    if (parser.isSet("compare")) {
        static const QRegularExpression pair(QStringLiteral("^\\s*(\\d+)\\s*,\\s*(\\d+)\\s*$"));
        const auto match = pair.match(parser.value("compare"));
        bool okA = false, okB = false;
        if (match.hasMatch()) {
            options.compare_a = match.captured(1).toInt(&okA);
            options.compare_b = match.captured(2).toInt(&okB);
        }
        if (!okA || !okB)
            return Error{
                QStringLiteral("--compare: expected two head numbers A,B, got '%1'").arg(parser.value("compare"))};
        options.compare_given = true;
    }
    if (parser.isSet("size")) {
        static const QRegularExpression wxh(QStringLiteral("^\\s*(\\d{1,6})\\s*[xX]\\s*(\\d{1,6})\\s*$"));
        const auto match = wxh.match(parser.value("size"));
        const int w = match.hasMatch() ? match.captured(1).toInt() : 0;
        const int h = match.hasMatch() ? match.captured(2).toInt() : 0;
        if (w < 1 || h < 1 || w > kMaxPictureSide || h > kMaxPictureSide)
            return Error{QStringLiteral("--size: expected WIDTHxHEIGHT with sides from 1 to %1, got '%2'")
                             .arg(kMaxPictureSide)
                             .arg(parser.value("size"))};
        options.size = QSize(w, h);
        options.size_given = true;
    }
    options.batch_given = parser.isSet("batch");
    if (parser.isSet("color-scale")) {
        const std::optional<ColorScale> scale = ColorScales::fromCommandLine(parser.value("color-scale").trimmed());
        if (!scale)
            return Error{
                QStringLiteral("--color-scale: expected linear, log, percentile, all-cells or per-row, got '%1'")
                    .arg(parser.value("color-scale"))};
        options.color_scale = *scale;
        options.color_scale_given = true;
    }
    if (parser.isSet("hide-tokens")) {
        const QString text = parser.value("hide-tokens");
        static const QRegularExpression position(QStringLiteral("^\\s*\\d{1,9}\\s*$"));
        for (const QString& part : text.split(u',')) {
            if (!position.match(part).hasMatch())
                return Error{
                    QStringLiteral("--hide-tokens: expected 0-based token positions I,J,..., got '%1'").arg(text)};
            options.hidden_tokens.append(part.trimmed().toInt());
        }
    }
    if (parser.isSet("top-mass")) {
        bool ok = false;
        const double percent = parser.value("top-mass").trimmed().toDouble(&ok);
        if (!ok || !(percent > 0.0) || percent > 100.0)
            return Error{QStringLiteral("--top-mass: expected a percentage above 0 and at most 100, got '%1'")
                             .arg(parser.value("top-mass"))};
        options.top_mass = percent / 100.0;
    }
    if (parser.isSet("reduce")) {
        const std::optional<CellReduction> how = cellReductionFromKey(parser.value("reduce").trimmed());
        if (!how)
            return Error{QStringLiteral("--reduce: expected max or mean, got '%1'").arg(parser.value("reduce"))};
        options.reduction = *how;
        options.reduction_given = true;
    }
    if (parser.isSet("aggregate-heads")) {
        const QString fusion = parser.value("aggregate-heads").trimmed();
        if (fusion != u"mean" && fusion != u"max")
            return Error{QStringLiteral("--aggregate-heads: expected mean or max, got '%1'")
                             .arg(parser.value("aggregate-heads"))};
        options.aggregate = fusion == u"mean" ? HeadAggregate::Mean : HeadAggregate::Max;
    }
    if (parser.isSet("rollout-fusion")) {
        const std::optional<HeadFusion> fusion = headFusionFromKey(parser.value("rollout-fusion").trimmed());
        if (!fusion)
            return Error{QStringLiteral("--rollout-fusion: expected mean, max or min, got '%1'")
                             .arg(parser.value("rollout-fusion"))};
        options.rollout_fusion = *fusion;
    }
    if (parser.isSet("residual-weight")) {
        bool ok = false;
        const double weight = parser.value("residual-weight").trimmed().toDouble(&ok);
        if (!ok || !(weight >= 0.0 && weight <= 1.0))
            return Error{QStringLiteral("--residual-weight: expected a number from 0 to 1, got '%1'")
                             .arg(parser.value("residual-weight"))};
        options.residual_weight = weight;
    }
    if (parser.isSet("induction-probe")) {
        bool ok = false;
        const int length = parser.value("induction-probe").trimmed().toInt(&ok);
        if (!ok || length < 1 || length > 1 << 20)
            return Error{QStringLiteral("--induction-probe: expected a positive number of tokens, got '%1'")
                             .arg(parser.value("induction-probe"))};
        options.induction_probe = length;
    }
    if (parser.isSet("mark-heads")) {
        options.mark_heads = headScoreKindFromKey(parser.value("mark-heads").trimmed());
        if (!options.mark_heads)
            return Error{QStringLiteral("--mark-heads: expected previous, duplicate, induction or first, got '%1'")
                             .arg(parser.value("mark-heads"))};
        if (!parser.isSet("export") || options.view != View::Model)
            return Error{QStringLiteral("--mark-heads: only with --view model and --export")};
    }
    if (parser.isSet("sort-heads")) {
        options.sort_heads = headOrderKindFromKey(parser.value("sort-heads").trimmed());
        if (!options.sort_heads)
            return Error{
                QStringLiteral("--sort-heads: expected previous, duplicate, induction, entropy or first, got '%1'")
                    .arg(parser.value("sort-heads"))};
        if (!parser.isSet("export") || options.view != View::Model)
            return Error{QStringLiteral("--sort-heads: only with --view model and --export")};
    }
    for (const char* rollout : {"rollout-fusion", "residual-weight", "induction-probe"})
        if (parser.isSet(QLatin1String(rollout)) && !parser.isSet("model"))
            return Error{QStringLiteral("--%1: only with --model (the rollout runs across a model's layers)")
                             .arg(QLatin1String(rollout))};
    auto heads = HeadsCommandLine::parse(parser);
    if (!heads)
        return Error{heads.error()};
    options.heads = std::move(heads).value();
    auto generation = GenerationCommandLine::parse(parser);
    if (!generation)
        return Error{generation.error()};
    options.generation = std::move(generation).value();
    auto interventions = InterventionCommandLine::parse(parser, options.heads);
    if (!interventions)
        return Error{interventions.error()};
    options.interventions = std::move(interventions).value();
    auto patching = PatchingCommandLine::parse(parser, options.heads);
    if (!patching)
        return Error{patching.error()};
    options.patching = std::move(patching).value();
    options.json_trace = parser.isSet("json-trace");
    if (parser.isSet("memory-budget")) {
        auto budget = MemoryPlan::parseSize(parser.value("memory-budget"));
        if (!budget)
            return Error{QStringLiteral("--memory-budget: %1").arg(budget.error())};
        options.memory_budget = *budget;
    }
    if (parser.isSet("tab")) {
        options.tab = viewFromKey(parser.value("tab"));
        if (!options.tab) {
            QStringList keys;
            for (const ViewRow& row : ViewRegistry::rows())
                keys << QString::fromLatin1(row.key);
            return Error{
                QStringLiteral("--tab: expected %1, got '%2'").arg(joinedAlternatives(keys), parser.value("tab"))};
        }
    }

    if (parser.isSet("json")) {
        options.json_path = parser.value("json");
        if (options.json_path != u"-")
            if (Status s = checkOutput(QStringLiteral("--json"), options.json_path, {}); !s)
                return Error{s.error()};
    }
    if (parser.isSet("export")) {
        options.export_path = parser.value("export");
        if (Status s = checkOutput(QStringLiteral("--export"), options.export_path, {"png", "svg", "pdf"}); !s)
            return Error{s.error()};
    }
    // The heatmap options draw pictures: --export (or the window); a --json alone has none.
    if (!parser.isSet("export") && parser.isSet("json"))
        for (const char* const* picture = SessionCommandLine::kPictureOnly; *picture; ++picture)
            if (parser.isSet(QLatin1String(*picture)))
                return Error{QStringLiteral("--%1: only for --export or the window").arg(QLatin1String(*picture))};
    options.save_session_path = parser.value("save-session");  // a run without a window
    if (options.induction_probe > 0 && !options.headless())
        return Error{QStringLiteral("--induction-probe: only with --json or --export")};
    if (options.json_trace && !parser.isSet("json"))
        return Error{QStringLiteral("--json-trace: only with --json")};
    if (options.json_trace && parser.isSet("model"))
        return Error{QStringLiteral("--json-trace: not with --model (the trace is of a single attention layer)")};
    if (parser.isSet("screenshot")) {
        options.screenshot_path = parser.value("screenshot");
        if (Status s = checkOutput(QStringLiteral("--screenshot"), options.screenshot_path, {"png"}); !s)
            return Error{s.error()};
        if (options.headless())
            return Error{QStringLiteral("--screenshot: cannot be combined with --json or --export")};
        if (!options.input_path.isEmpty())
            return Error{QStringLiteral("--screenshot: the window shows sentences, not --input")};
        if (!options.kv_input_path.isEmpty())
            return Error{QStringLiteral("--screenshot: the window shows sentences, not --kv-input")};
    }
    if (parser.isSet("example")) {
        options.example = parser.value("example").trimmed().toLower();
        if (options.example != u"toy")
            return Error{QStringLiteral("--example: expected toy, got '%1'").arg(parser.value("example"))};
        if (options.headless())
            return Error{QStringLiteral("--example: only for the window (alone or with --screenshot)")};
    }
    if (!options.input_path.isEmpty() && !QFileInfo(options.input_path).isFile())
        return Error{QStringLiteral("--input %1: no such file").arg(options.input_path)};

    if (parser.isSet("token-ids")) {
        if (!parser.isSet("model"))
            return Error{QStringLiteral("--token-ids: only with --model")};
        auto ids = TokenIdList::parse(parser.value("token-ids"));
        if (!ids)
            return Error{QStringLiteral("--token-ids: %1").arg(ids.error())};
        options.token_ids = std::move(ids).value();
        options.token_ids_given = true;
    }
    if (parser.isSet("model")) {
        options.model_dir = parser.value("model");
        if (Status s = checkModelOptions(parser, options); !s)
            return Error{s.error()};
        if (!options.export_path.isEmpty() && options.view == View::Attribution && options.heads.metric.isEmpty())
            return Error{
                QStringLiteral("--view attribution: needs --metric TARGET[,FOIL] (the logit it splits into parts)")};
        if (!options.export_path.isEmpty() && options.view == View::Ablation && options.heads.metric.isEmpty())
            return Error{
                QStringLiteral("--view ablation: needs --metric TARGET[,FOIL] (the number each ablation changes)")};
    } else if (parser.isSet("view")) {
        const ViewRow& row = ViewRegistry::row(options.view);
        if (options.model_chain)
            return Error{QStringLiteral("--view %1: needs --model DIR (%2)").arg(row.model_key, row.model_key_needs)};
        if (row.needs_model)
            return Error{QStringLiteral("--view %1: needs --model DIR (%2)").arg(row.key, row.needs_model)};
    }
    if (parser.isSet("save-session")) {
        auto session = SessionCommandLine::toSave(parser);
        if (!session)
            return Error{session.error()};
        options.session_to_save = std::move(session).value();
    }
    return options;
}

}  // namespace attn
