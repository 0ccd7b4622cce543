#include "app/ModelCommand.h"

#include "app/ExportOptions.h"
#include "app/GenerationOptions.h"
#include "app/JsonOutput.h"
#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/InductionProbe.h"
#include "core/lens/AblationScan.h"
#include "core/lens/ActivationPatching.h"
#include "core/lens/AttentionNorms.h"
#include "core/lens/LogitAttribution.h"
#include "core/lens/LogitLens.h"
#include "core/lens/LogitMetric.h"
#include "core/model/TransformerForward.h"
#include "core/pipeline/MemoryPlan.h"
#include "core/pipeline/ModelLayerResult.h"
#include "core/report/ModelJsonReport.h"
#include "ui/controller/LensMemory.h"
#include "ui/export/ViewExporter.h"

#include <QDir>
#include <QFileInfo>

namespace attn {
namespace {

struct ModelInput {
    std::vector<int> ids;
    QStringList tokens;  // convert_ids_to_tokens, or the id in decimal without a tokenizer
    QString option;      // "--token-ids" or "--sentence", for messages about the input
};

// The ids as given (--token-ids, --induction-probe), or the sentence through the folder's
// tokenizer, whose absence or fault is said as the folder's (ModelSession::open).
Result<ModelInput> modelInput(const CommandLineOptions& options, const ModelSession& session)
{
    ModelInput input;
    if (options.induction_probe > 0 || options.token_ids_given) {
        input.option =
            options.induction_probe > 0 ? QStringLiteral("--induction-probe") : QStringLiteral("--token-ids");
        input.ids = options.induction_probe > 0
                        ? InductionProbe::tokens(options.induction_probe, session.config().vocab_size)
                        : options.token_ids;
    } else {
        input.option = QStringLiteral("--sentence");
        auto ids = session.encode(options.sentence);
        if (!ids && !session.tokenizer())
            return Error{QStringLiteral("--model %1: %2").arg(options.model_dir, ids.error())};
        if (!ids)
            return Error{QStringLiteral("--sentence: %1").arg(ids.error())};
        input.ids = std::move(ids).value();
    }
    input.tokens = session.tokenTexts(input.ids);
    return input;
}

// --patch-from's text through the folder's tokenizer, or --patch-from-ids as given; checked
// against the model and against the main input's length before any pass.
Result<std::vector<int>> cleanInput(const CommandLineOptions& options, const ModelSession& session, int main_tokens)
{
    const PatchingOptions& patching = options.patching;
    std::vector<int> ids = patching.clean_ids;
    if (!patching.clean_ids_given) {
        auto encoded = session.encode(patching.clean_sentence);
        if (!encoded)
            return Error{QStringLiteral("--patch-from: %1").arg(encoded.error())};
        ids = std::move(encoded).value();
    }
    if (Status s = TransformerForward::checkInput(session.config(), ids, options.config.layer); !s)
        return Error{QStringLiteral("%1: %2").arg(patching.option(), s.error())};
    if (Status s = PatchingCommandLine::checkLength(patching, int(ids.size()), main_tokens); !s)
        return Error{s.error()};
    return ids;
}

Status writeJson(const CommandLineOptions& options, QTextStream& out, const ModelSession& session, const ModelRun& run,
                 const ModelInput& input, const std::vector<TokenPrediction>& predictions, const HeadsReport& heads)
{
    const auto spell = [&session](int id) { return session.tokenText(id); };
    const AttentionRollout::Options rollout{options.rollout_fusion, options.residual_weight, -1};
    return JsonOutput::write(options.json_path, out, [&](QIODevice& device) {
        return ModelJsonReport::write(session.config(), run, input.tokens, predictions, spell, rollout, device, heads);
    });
}

// What the options of "What heads do" refuse before the pass: a folder without a prediction
// head, attribution on a post-norm (BERT-family) model, a metric token that is neither an id nor
// exactly one vocabulary entry.   -> the metric's tokens, when --metric is given
// --view attribution (with --export) asks what --attribution does and is refused the same way.
Result<std::optional<MetricTokens>> checkHeads(const HeadsOptions& heads, bool attribution_view,
                                               const ModelSession& session)
{
    const ModelConfig& config = session.config();
    if (!heads.any() && !attribution_view)
        return std::optional<MetricTokens>();
    const bool attribution = heads.attribution || attribution_view;
    const char* option = heads.logit_lens    ? "--logit-lens"
                         : heads.attribution ? "--attribution"
                         : attribution_view  ? "--view attribution"
                                             : "--metric";
    if (!session.model().hasPredictionHead())
        return Error{QStringLiteral("%1: the model folder has no prediction head (%2)")
                         .arg(QLatin1String(option), session.model().weights().head_missing)};
    if (attribution &&
        (config.architecture == ModelArchitecture::Bert || config.architecture == ModelArchitecture::DistilBert))
        return Error{
            QStringLiteral("%1: only for pre-norm models (GPT-2, Llama, Qwen2, Mistral, "
                           "GPT-NeoX); %2 normalises after each block")
                .arg(QLatin1String(attribution_view && !heads.attribution ? "--view attribution" : "--attribution"),
                     config.model_type)};
    if (heads.metric.isEmpty())
        return std::optional<MetricTokens>();
    LogitMetric::TokenLookup lookup;
    if (const ModelTokenizer* tokenizer = session.tokenizer())
        lookup = [tokenizer](const QString& token) { return tokenizer->tokenId(token); };
    auto tokens = LogitMetric::parse(heads.metric, config.vocab_size, lookup);
    if (!tokens)
        return Error{QStringLiteral("--metric: %1").arg(tokens.error())};
    return std::optional<MetricTokens>(*tokens);
}

// The metric, the logit lens and the attribution of a run, as the options ask.
Result<HeadsReport> computeHeads(const HeadsOptions& heads, const std::optional<MetricTokens>& tokens,
                                 const TransformerModel& model, const ModelRun& run)
{
    HeadsReport report;
    const int position = heads.position.value_or(run.seqLen() - 1);
    if (tokens) {
        auto value = LogitMetric::value(model.config(), model.weights(), run, position, *tokens);
        if (!value)
            return Error{QStringLiteral("--metric: %1").arg(value.error())};
        report.metric = HeadsReport::Metric{*tokens, position, *value};
    }
    if (heads.logit_lens) {
        LensRequest request;
        request.top_k = heads.top_k;
        if (tokens)
            request.tracked = tokens->target;
        auto lens = LogitLens::compute(model.config(), model.weights(), run, request);
        if (!lens)
            return Error{QStringLiteral("--logit-lens: %1").arg(lens.error())};
        report.lens = std::move(lens).value();
    }
    if (heads.attribution) {
        auto attribution = LogitAttribution::compute(model.config(), model.weights(), run, position, *tokens);
        if (!attribution)
            return Error{QStringLiteral("--attribution: %1").arg(attribution.error())};
        report.attribution = std::move(attribution).value();
    }
    if (heads.attention_norms) {
        auto norms = AttentionNorms::ofModel(model.config(), model.weights(), run);
        if (!norms)
            return Error{QStringLiteral("--attention-kind norms: %1").arg(norms.error())};
        report.value_norms = std::move(norms).value();
    }
    return report;
}

// The run the options ask for: --ablate's heads ablated in the pass, or the plain run. keep_residual:
// the residual stream kept (the logit lens, the ablation scan).
Result<ModelRun> forwardRun(const CommandLineOptions& options, const TransformerModel& model,
                            const std::vector<int>& ids, bool keep_residual)
{
    if (options.interventions.ablate.empty())
        return model.forward(ids, options.config.layer, keep_residual);
    ForwardIntervention ablation;
    for (const auto& [layer, head] : options.interventions.ablate)
        ablation.ablateHead(layer, head, options.interventions.mode);
    return TransformerForward::runIntervened(model.config(), model.weights(), ids, options.config.layer, ablation,
                                             nullptr, keep_residual);
}

// --ablation-scan: every head ablated alone against the plain run (which `run` is unless --ablate).
Result<AblationScanResult> ablationScan(const CommandLineOptions& options, const TransformerModel& model,
                                        const ModelRun& run, const HeadsReport& heads)
{
    std::optional<ModelRun> plain;
    if (!options.interventions.ablate.empty()) {
        auto unablated = model.forward(run.token_ids, options.config.layer, true);
        if (!unablated)
            return Error{unablated.error()};
        plain = std::move(unablated).value();
    }
    return AblationScan::run(model.config(), model.weights(), plain ? *plain : run, heads.metric->position,
                             heads.metric->tokens, options.interventions.mode);
}

// "gpt2-tiny (gpt2) · 12 tokens": the folder and the input, above a picture of the whole model.
QString modelCaption(const QString& dir, const ModelConfig& config, int seq_len)
{
    return QStringLiteral("%1 (%2) · %3 token%4")
        .arg(QFileInfo(QDir::cleanPath(dir)).fileName(), config.model_type)
        .arg(seq_len)
        .arg(seq_len == 1 ? QString() : QStringLiteral("s"));
}

}  // namespace

Status ModelCommand::exportPicture(const CommandLineOptions& options, const ModelSession& session, ModelRun& run,
                                   const QStringList& tokens, std::optional<MetricTokens> metric,
                                   const std::vector<Matrix>* value_norms)
{
    // The tokens as a person reads them ("Ġcat" -> "␣cat"), for the pictures that label them here.
    const QStringList labels = session.tokenLabels(tokens);
    ExportRequest request = ExportOptions::request(options);
    request.top_k = options.heads.top_k;
    request.metric = metric;
    request.position = options.heads.position;
    request.ablation_mode = options.interventions.mode;
    const QString caption = modelCaption(options.model_dir, session.config(), run.seqLen());
    // A view drawn from the whole run (every layer x head, the rollout, the model's chain of blocks)
    // or the selected layer, drawn by the single-layer views.
    if (options.model_chain || ViewRegistry::row(options.view).source == ViewSource::ModelRun) {
        if (!value_norms || options.model_chain)
            return ViewExporter::exportRun(run, session.config(), labels, caption, request, &session);
        // The run's maps weighed by the norms while the picture is drawn, then its weights again
        // (the JSON written after reads them).
        auto weighed = AttentionDisplay::weighedMaps(run.attention, *value_norms);
        if (!weighed)
            return Error{QStringLiteral("--attention-kind norms: %1").arg(weighed.error())};
        if (options.view == View::Rollout)  // the rollout mixes distributions with the identity
            weighed.value() = AttentionDisplay::rowNormalisedMaps(*weighed);
        std::swap(run.attention, weighed.value());
        run.value_norms = true;
        const Status drawn = ViewExporter::exportRun(run, session.config(), labels, caption, request, &session);
        std::swap(run.attention, weighed.value());
        run.value_norms = false;
        return drawn;
    }
    auto result = ModelLayerResult::make(session.model(), options.model_dir, run, labels, run.selected_layer);
    if (!result)
        return Error{result.error()};
    if (!value_norms)
        return ExportOptions::exportResult(options, *result);
    auto weighted = AttentionDisplay::withValueNorms(*result, (*value_norms)[size_t(run.selected_layer)]);
    if (!weighted)
        return Error{QStringLiteral("--attention-kind norms: %1").arg(weighted.error())};
    return ExportOptions::exportResult(options, *weighted);
}

int ModelCommand::run(const CommandLineOptions& options, QTextStream& out, QTextStream& err)
{
    auto fail = [&](const QString& message) {
        err << "error: " << message << '\n';
        err.flush();
        return 1;
    };

    auto session = ModelSession::open(options.model_dir);
    if (!session)
        return fail(QStringLiteral("--model %1: %2").arg(options.model_dir, session.error()));
    const ModelConfig& config = (*session)->config();
    if (options.config.layer >= config.num_layers)
        return fail(QStringLiteral("--layer %1: out of range, the model has layers 0 to %2")
                        .arg(options.config.layer)
                        .arg(config.num_layers - 1));
    if (Status s = ExportOptions::checkHeads(options, config.num_heads); !s)
        return fail(s.error());

    if (Status s = InterventionCommandLine::checkRange(options.interventions, config.num_layers, config.num_heads); !s)
        return fail(s.error());
    if (options.interventions.scan && !(*session)->model().hasPredictionHead())
        return fail(QStringLiteral("--ablation-scan: the model folder has no prediction head (%1)")
                        .arg((*session)->model().weights().head_missing));
    if (options.patching.any() && !(*session)->model().hasPredictionHead())
        return fail(QStringLiteral("%1: the model folder has no prediction head (%2)")
                        .arg(options.patching.option(), (*session)->model().weights().head_missing));
    if (options.patching.any() && (options.interventions.any() || options.generation.any()))
        return fail(QStringLiteral("%1: not with %2 (patching compares two plain runs of the same length)")
                        .arg(options.patching.option(),
                             options.generation.any() ? QStringLiteral("--generate")
                             : options.interventions.scan ? QStringLiteral("--ablation-scan")
                                                          : QStringLiteral("--ablate")));
    const bool attribution_view = !options.export_path.isEmpty() && options.view == View::Attribution;
    auto metric_tokens = checkHeads(options.heads, attribution_view, **session);
    if (!metric_tokens)
        return fail(metric_tokens.error());

    auto input = modelInput(options, **session);
    if (!input)
        return fail(input.error());
    if (Status s = TransformerForward::checkInput(config, input->ids, options.config.layer); !s)
        return fail(QStringLiteral("%1: %2").arg(input->option, s.error()));
    const TransformerModel& model = (*session)->model();
    // The logit lens (--logit-lens, --view lens) reads the residual stream.
    const bool lens = options.heads.logit_lens || (!options.export_path.isEmpty() && options.view == View::Lens);
    if (lens) {  // planned before the pass keeps the stream, at the length the pass will have
        const int tokens = int(input->ids.size()) + options.generation.max_new_tokens;
        const std::int64_t budget = options.memory_budget > 0 ? options.memory_budget : MemoryPlan::defaultBudget();
        if (Status s = LensMemory::check(config, tokens, options.heads.top_k, budget); !s)
            return fail(
                QStringLiteral("%1: %2 (--memory-budget)")
                    .arg(options.heads.logit_lens ? QStringLiteral("--logit-lens") : QStringLiteral("--view lens"),
                         s.error()));
    }
    // --generate: the input becomes the final sequence, and its run the one made step by step.
    std::optional<ModelRun> generated_run;
    std::optional<int> generated;
    if (options.generation.any()) {
        if (!options.interventions.ablate.empty())
            return fail(QStringLiteral("--ablate: not with --generate (generation runs the model without "
                                       "interventions); ablate the generated ids with --token-ids instead"));
        auto generation =
            GenerationCommandLine::run(options.generation, **session, input->ids, options.config.layer,
                                       lens || options.interventions.scan);
        if (!generation)
            return fail(generation.error());
        input->ids = (*generation)->tokenIds();
        input->tokens = (*session)->tokenTexts(input->ids);
        generated = (*generation)->generated();
        generated_run = (*generation)->run();
    }
    if (options.heads.position && *options.heads.position >= int(input->ids.size()))
        return fail(QStringLiteral("--position %1: outside the input (positions 0 to %2)")
                        .arg(*options.heads.position)
                        .arg(input->ids.size() - 1));
    std::vector<int> clean_ids;
    if (options.patching.any()) {
        auto clean = cleanInput(options, **session, int(input->ids.size()));
        if (!clean)
            return fail(clean.error());
        clean_ids = std::move(clean).value();
    }
    // Patching's passes start from the residual stream, as the scan's and the lens's do.
    const bool keep_residual_stream = lens || options.interventions.scan || options.patching.any();
    auto run = generated_run ? Result<ModelRun>(std::move(*generated_run))
                             : forwardRun(options, model, input->ids, keep_residual_stream);
    if (!run)
        return fail(QStringLiteral("--model %1: %2").arg(options.model_dir, run.error()));
    auto heads = computeHeads(options.heads, *metric_tokens, model, *run);
    if (!heads)
        return fail(heads.error());
    heads->generated = generated;
    heads->ablated = options.interventions.ablate;
    if (options.interventions.scan) {
        auto scan = ablationScan(options, model, *run, *heads);
        if (!scan)
            return fail(QStringLiteral("--ablation-scan: %1").arg(scan.error()));
        heads->ablation_scan = std::move(scan).value();
    }
    if (options.patching.any()) {
        PatchingRequest request{clean_ids, options.patching.site, heads->metric->position, **metric_tokens,
                                options.memory_budget > 0 ? options.memory_budget : MemoryPlan::defaultBudget()};
        auto patching = ActivationPatching::run(config, model.weights(), *run, request);
        if (!patching)
            return fail(QStringLiteral("%1: %2").arg(options.patching.option(), patching.error()));
        heads->patching = std::move(patching).value();
    }

    std::vector<TokenPrediction> predictions;
    const std::vector<int> positions = (*session)->predictedPositions(input->ids);
    if (model.hasPredictionHead() && !positions.empty() && !options.json_path.isEmpty()) {
        auto predicted = model.predict(*run, positions);
        if (!predicted)
            return fail(QStringLiteral("--model %1: %2").arg(options.model_dir, predicted.error()));
        predictions = std::move(predicted).value();
    }

    if (!options.export_path.isEmpty())
        if (Status s = exportPicture(options, **session, run.value(), input->tokens, *metric_tokens,
                                     options.heads.attention_norms ? &heads->value_norms : nullptr);
            !s)
            return fail(QStringLiteral("--export %1").arg(s.error()));
    if (!options.json_path.isEmpty())
        if (Status s = writeJson(options, out, **session, *run, *input, predictions, *heads); !s)
            return fail(s.error());
    return 0;
}

}  // namespace attn
