#include "app/ModelCommand.h"

#include "app/ExportOptions.h"
#include "app/JsonOutput.h"
#include "core/analysis/InductionProbe.h"
#include "core/model/TransformerForward.h"
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
    QString option;      // "--token-ids" or "--sentence", for messages about the input
};

// The ids as given (--token-ids, --induction-probe), or the sentence through the folder's
// tokenizer, whose absence or fault is said as the folder's (ModelSession::open).
Result<ModelInput> modelInput(const CommandLineOptions& options, const ModelSession& session)
{
    ModelInput input;
    if (options.induction_probe > 0 || options.token_ids_given) {
        input.option = options.induction_probe > 0 ? QStringLiteral("--induction-probe") : QStringLiteral("--token-ids");
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

Status writeJson(const CommandLineOptions& options, QTextStream& out, const ModelSession& session, const ModelRun& run,
                 const ModelInput& input, const std::vector<TokenPrediction>& predictions)
{
    const auto spell = [&session](int id) { return session.tokenText(id); };
    const AttentionRollout::Options rollout{options.rollout_fusion, options.residual_weight, -1};
    return JsonOutput::write(options.json_path, out, [&](QIODevice& device) {
        return ModelJsonReport::write(session.config(), run, input.tokens, predictions, spell, rollout, device);
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

Status ModelCommand::exportPicture(const CommandLineOptions& options, const ModelSession& session, const ModelRun& run,
                                   const QStringList& tokens)
{
    // The tokens as a person reads them ("Ġcat" -> "␣cat"), for the pictures that label them here.
    const QStringList labels = session.tokenLabels(tokens);
    const ExportRequest request = ExportOptions::request(options);
    const QString caption = modelCaption(options.model_dir, session.config(), run.seqLen());
    // A view drawn from the whole run (every layer x head, the rollout, the model's chain of blocks)
    // or the selected layer, drawn by the single-layer views.
    if (options.model_chain || ViewRegistry::row(options.view).source == ViewSource::ModelRun)
        return ViewExporter::exportRun(run, session.config(), labels, caption, request);
    auto result = ModelLayerResult::make(session.model(), options.model_dir, run, labels, run.selected_layer);
    if (!result)
        return Error{result.error()};
    return ExportOptions::exportResult(options, *result);
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

    auto input = modelInput(options, **session);
    if (!input)
        return fail(input.error());
    if (Status s = TransformerForward::checkInput(config, input->ids, options.config.layer); !s)
        return fail(QStringLiteral("%1: %2").arg(input->option, s.error()));
    const TransformerModel& model = (*session)->model();
    auto run = model.forward(input->ids, options.config.layer);
    if (!run)
        return fail(QStringLiteral("--model %1: %2").arg(options.model_dir, run.error()));

    std::vector<TokenPrediction> predictions;
    const std::vector<int> positions = (*session)->predictedPositions(input->ids);
    if (model.hasPredictionHead() && !positions.empty() && !options.json_path.isEmpty()) {
        auto predicted = model.predict(*run, positions);
        if (!predicted)
            return fail(QStringLiteral("--model %1: %2").arg(options.model_dir, predicted.error()));
        predictions = std::move(predicted).value();
    }

    if (!options.export_path.isEmpty())
        if (Status s = exportPicture(options, **session, *run, input->tokens); !s)
            return fail(QStringLiteral("--export %1").arg(s.error()));
    if (!options.json_path.isEmpty())
        if (Status s = writeJson(options, out, **session, *run, *input, predictions); !s)
            return fail(s.error());
    return 0;
}

}  // namespace attn
