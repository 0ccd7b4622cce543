#include "app/ModelCommand.h"

#include "app/HeadlessRunner.h"
#include "app/JsonOutput.h"
#include "core/analysis/InductionProbe.h"
#include "core/model/ModelTokenizer.h"
#include "core/model/TransformerForward.h"
#include "core/text/TokenPiece.h"
#include "core/pipeline/ModelLayerResult.h"
#include "core/report/ModelJsonReport.h"
#include "ui/export/ViewExporter.h"

#include <QDir>
#include <QFileInfo>

namespace attn {
namespace {

struct ModelInput {
    std::vector<int> ids;
    QStringList tokens;  // convert_ids_to_tokens, or the id in decimal without a tokenizer
    std::unique_ptr<ModelTokenizer> tokenizer;
    QString option;  // "--token-ids" or "--sentence", for messages about the input
};

QString tokenText(const ModelTokenizer* tokenizer, int id)
{
    const QString text = tokenizer ? tokenizer->tokenText(id) : QString();
    return text.isEmpty() ? QString::number(id) : text;
}

Result<ModelInput> modelInput(const CommandLineOptions& options, const ModelConfig& config)
{
    ModelInput input;
    if (options.induction_probe > 0 || options.token_ids_given) {
        // The ids are used as they are; a tokenizer, when the folder has a usable one, only spells them.
        input.option = options.induction_probe > 0 ? QStringLiteral("--induction-probe") : QStringLiteral("--token-ids");
        input.ids = options.induction_probe > 0 ? InductionProbe::tokens(options.induction_probe, config.vocab_size)
                                                : options.token_ids;
        if (ModelTokenizer::hasFiles(options.model_dir)) {
            auto tokenizer = ModelTokenizer::load(options.model_dir);
            if (tokenizer)
                input.tokenizer = std::move(tokenizer).value();
        }
    } else {
        input.option = QStringLiteral("--sentence");
        auto tokenizer = ModelTokenizer::load(options.model_dir);
        if (!tokenizer)
            return Error{QStringLiteral("--model %1: %2").arg(options.model_dir, tokenizer.error())};
        input.tokenizer = std::move(tokenizer).value();
        input.ids = input.tokenizer->encode(options.sentence);
        if (input.ids.empty())
            return Error{QStringLiteral("--sentence: the sentence gives no tokens")};
    }
    for (int id : input.ids)
        input.tokens << tokenText(input.tokenizer.get(), id);
    return input;
}

// The positions the head predicts at: GPT-2 every position (the next token), the BERT family
// each [MASK] (known only from a tokenizer).
std::vector<int> predictedPositions(const ModelConfig& config, const ModelInput& input)
{
    std::vector<int> positions;
    if (config.causal) {
        for (int i = 0; i < int(input.ids.size()); ++i)
            positions.push_back(i);
        return positions;
    }
    const std::optional<int> mask = input.tokenizer ? input.tokenizer->tokenId(QStringLiteral("[MASK]")) : std::nullopt;
    for (int i = 0; mask && i < int(input.ids.size()); ++i)
        if (input.ids[size_t(i)] == *mask)
            positions.push_back(i);
    return positions;
}

Status writeJson(const CommandLineOptions& options, QTextStream& out, const TransformerModel& model,
                 const ModelRun& run, const ModelInput& input, const std::vector<TokenPrediction>& predictions)
{
    const auto spell = [&input](int id) { return tokenText(input.tokenizer.get(), id); };
    const AttentionRollout::Options rollout{options.rollout_fusion, options.residual_weight, -1};
    return JsonOutput::write(options.json_path, out, [&](QIODevice& device) {
        return ModelJsonReport::write(model.config(), run, input.tokens, predictions, spell, rollout, device);
    });
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

Status ModelCommand::exportPicture(const CommandLineOptions& options, const TransformerModel& model,
                                   const ModelRun& run, const QStringList& tokens, bool byte_level)
{
    // The tokens as a person reads them ("Ġcat" -> "␣cat"), for the pictures that label them here.
    QStringList labels;
    TokenPiece previous;
    for (int i = 0; i < tokens.size(); ++i) {
        previous = TokenPiece::of(tokens[i], byte_level, i > 0 ? &previous : nullptr);
        labels << previous.label();
    }
    ExportRequest request;
    request.path = options.export_path;
    request.size = options.size;
    const QString caption = modelCaption(options.model_dir, model.config(), run.seqLen());
    switch (options.view) {
        case View::Model:  // every layer x head
            request.view = ExportView::Model;
            request.mark_heads = options.mark_heads;
            request.sort_heads = options.sort_heads;
            request.color_scale = options.color_scale;
            request.reduction = options.reduction;
            request.aggregate = options.aggregate;
            request.hidden_keys = options.hidden_tokens;
            return ViewExporter::exportModel(run, caption, request);
        case View::Rollout:  // across every layer
            request.color_scale = options.color_scale;
            request.hidden_keys = options.hidden_tokens;
            return ViewExporter::exportRollout(run, labels, {options.rollout_fusion, options.residual_weight, -1},
                                               caption, request);
        case View::Shapes:
            if (options.model_chain) {  // --view model-shapes: the whole model's chain of blocks
                request.view = ExportView::Shapes;
                return ViewExporter::exportModelShapes(model.config(), run.seqLen(), caption, request);
            }
            [[fallthrough]];  // --view shapes: the selected layer's attention, as the contract says
        default:  // the selected layer, drawn by the single-layer views
        {
            auto result = ModelLayerResult::make(model, options.model_dir, run, labels, run.selected_layer);
            if (!result)
                return Error{result.error()};
            return HeadlessRunner::exportView(options, *result);
        }
    }
}

int ModelCommand::run(const CommandLineOptions& options, QTextStream& out, QTextStream& err)
{
    auto fail = [&](const QString& message) {
        err << "error: " << message << '\n';
        err.flush();
        return 1;
    };

    auto model = TransformerModel::load(options.model_dir);
    if (!model)
        return fail(QStringLiteral("--model %1: %2").arg(options.model_dir, model.error()));
    const ModelConfig& config = (*model)->config();
    if (options.config.layer >= config.num_layers)
        return fail(QStringLiteral("--layer %1: out of range, the model has layers 0 to %2")
                        .arg(options.config.layer)
                        .arg(config.num_layers - 1));
    if (Status s = HeadlessRunner::checkHeads(options, config.num_heads); !s)
        return fail(s.error());

    auto input = modelInput(options, config);
    if (!input)
        return fail(input.error());
    if (Status s = TransformerForward::checkInput(config, input->ids, options.config.layer); !s)
        return fail(QStringLiteral("%1: %2").arg(input->option, s.error()));
    auto run = (*model)->forward(input->ids, options.config.layer);
    if (!run)
        return fail(QStringLiteral("--model %1: %2").arg(options.model_dir, run.error()));

    std::vector<TokenPrediction> predictions;
    const std::vector<int> positions = predictedPositions(config, *input);
    if ((*model)->hasPredictionHead() && !positions.empty() && !options.json_path.isEmpty()) {
        auto predicted = (*model)->predict(*run, positions);
        if (!predicted)
            return fail(QStringLiteral("--model %1: %2").arg(options.model_dir, predicted.error()));
        predictions = std::move(predicted).value();
    }

    if (!options.export_path.isEmpty()) {
        const bool byte_level = input->tokenizer && input->tokenizer->byteLevel();
        if (Status s = exportPicture(options, **model, *run, input->tokens, byte_level); !s)
            return fail(QStringLiteral("--export %1").arg(s.error()));
    }
    if (!options.json_path.isEmpty())
        if (Status s = writeJson(options, out, **model, *run, *input, predictions); !s)
            return fail(s.error());
    return 0;
}

}  // namespace attn
