#pragma once

#include "core/model/ForwardIntervention.h"
#include "core/model/ModelRun.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/SettingField.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace attn {

// A head switched off in the window's runs: its z replaced by zeros or its mean (HeadAblation).
struct AblatedHead {
    int layer = 0;
    int head = 0;
    HeadAblation mode = HeadAblation::Zero;

    bool operator==(const AblatedHead&) const = default;
};

class ModelSession;
class PendingModel;

// A whole model's pass: the folder opened if it is still to be read, a forward pass over the
// sentence (or the run in hand, when only the layer changed), and the chosen layer's result made
// from the run. What it needs is copied into a Request, so the GUI thread may change its state
// while the pass runs on the worker.
class ModelPass {
    Q_DECLARE_TR_FUNCTIONS(ModelPass)

public:
    struct Request {
        std::shared_ptr<const ModelSession> model;  // ready; else read through `pending`
        std::shared_ptr<PendingModel> pending;
        QString sentence;
        bool token_ids_input = false;  // the sentence is a list of token ids (TokenIdList), not text
        int layer = 0;
        std::shared_ptr<const ModelRun> run;  // the run to take the layer from; null: a forward pass
        QStringList tokens;                   // the run's tokens
        QStringList labels;                   // and as the views label them
        bool keep_residual_stream = false;    // the Lens tab reads it
        std::vector<AblatedHead> ablated;     // heads ablated in the forward pass (none: the plain run)
        bool adopt_run = false;               // `run` is a new run to show (a generation's step), not the one in hand
    };

    struct Outcome {
        std::shared_ptr<PendingModel> pending;  // the folder this pass read, or failed to
        std::shared_ptr<const ModelSession> model;
        std::shared_ptr<const ModelRun> run;
        QStringList tokens;  // as convert_ids_to_tokens spells them
        QStringList labels;  // as the views label them (TokenPiece::label)
        bool ran_forward = false;
        bool adopted_run = false;  // the request's run taken as the run in hand (Request::adopt_run)
        std::shared_ptr<const AttentionResult> result;
        SettingField error_field = SettingField::Sentence;
        QString error;
        bool token_ids_input = false;  // the request's reading of the sentence
    };

    static Outcome run(const Request& request);  // any thread
};

}  // namespace attn
