#include "ui/controller/ModelPass.h"

#include "core/model/ModelSession.h"
#include "core/model/TokenIdList.h"
#include "core/model/TransformerForward.h"
#include "core/pipeline/ModelLayerResult.h"
#include "ui/controller/PassCost.h"
#include "ui/controller/PendingModel.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <utility>

namespace attn {

namespace {

// The ids the model runs on: the typed ids as they are, or the sentence through the tokenizer
// (ModelSession::encode, whose refusal without a tokenizer names the reason: no files, or the
// file that cannot be read).
Result<std::vector<int>> inputIds(const ModelSession& model, const QString& sentence, bool token_ids_input)
{
    if (token_ids_input)
        return TokenIdList::parse(sentence);
    auto ids = model.encode(sentence);
    if (!ids && !model.tokenizer())
        return Error{ModelPass::tr("%1: %2: choose Token ids beside the field and type ids")
                         .arg(QFileInfo(model.dir()).fileName(), ids.error())};
    return ids;
}

// The run with the window's ablated heads: not through the session's cache, which holds plain
// runs only.
Result<std::shared_ptr<const ModelRun>> ablatedRun(const ModelSession& model, const std::vector<int>& ids, int layer,
                                                   const ModelPass::Request& job)
{
    const ModelConfig& config = model.config();
    ForwardIntervention ablation;
    for (const AblatedHead& head : job.ablated)
        ablation.ablateHead(head.layer, head.head, head.mode);
    QString why;
    if (!ablation.fits(config.num_layers, config.num_heads, config.headDim(), config.hidden_size, int(ids.size()),
                       &why))
        return Error{why};
    auto run = TransformerForward::runIntervened(config, model.model().weights(), ids, layer, ablation, nullptr,
                                                 job.keep_residual_stream);
    if (!run)
        return Error{run.error()};
    return std::make_shared<const ModelRun>(std::move(run).value());
}

}  // namespace

ModelPass::Outcome ModelPass::run(const Request& job)
{
    Outcome outcome;
    outcome.token_ids_input = job.token_ids_input;
    std::shared_ptr<const ModelSession> model = job.model;
    if (job.pending) {
        outcome.pending = job.pending;
        auto read = job.pending->get();
        if (!read) {
            outcome.error_field = SettingField::Model;
            outcome.error = read.error();
            return outcome;
        }
        model = std::move(read).value();
    }
    outcome.model = model;
    const ModelConfig& config = model->config();
    const int layer = job.layer < config.num_layers ? job.layer : 0;  // the controller reports a layer out of range

    QElapsedTimer timer;
    timer.start();
    std::shared_ptr<const ModelRun> run = job.run;
    outcome.tokens = job.tokens;
    outcome.labels = job.labels;
    if (!run) {
        const auto input = inputIds(*model, job.sentence, job.token_ids_input);
        if (!input) {
            outcome.error = input.error();
            return outcome;
        }
        const std::vector<int>& ids = input.value();
        if (Status fits = TransformerForward::checkInput(config, ids, layer); !fits) {
            outcome.error = fits.error();
            return outcome;
        }
        auto forward = job.ablated.empty() ? model->forwardWithCache(ids, layer, job.keep_residual_stream)
                                           : ablatedRun(*model, ids, layer, job);
        if (!forward) {
            outcome.error_field = SettingField::Model;
            outcome.error = QStringLiteral("%1: %2").arg(model->dir(), forward.error());
            return outcome;
        }
        run = std::move(forward).value();
        outcome.ran_forward = true;
        outcome.tokens = model->tokenTexts(ids);
        outcome.labels = model->tokenLabels(outcome.tokens);
    }
    outcome.run = run;
    outcome.adopted_run = job.adopt_run && job.run;
    auto result = ModelLayerResult::make(model->model(), model->dir(), *run, outcome.labels, layer,
                                         traceDetailFor(run->seqLen(), config.num_heads));
    if (!result) {
        outcome.error_field = SettingField::Layer;
        outcome.error = result.error();
        return outcome;
    }
    result->compute_ms = double(timer.nsecsElapsed()) / 1e6;
    outcome.result = std::make_shared<const AttentionResult>(std::move(result).value());
    return outcome;
}

}  // namespace attn
