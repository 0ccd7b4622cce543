#pragma once

#include "core/model/GenerationStep.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelSession.h"
#include "core/model/TokenGeneration.h"

#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace attn {

// The Generate view's work on its worker: a generation started from the prompt, or the one in
// hand brought to a sequence (a branch: the tokens up to a step and another token there; or a
// branch of the list gone back to), then tokens added until the request's length, an eos id or
// the cancel flag. Each token is handed over as it comes (Update::finished false); the last
// update holds the whole sequence's run and the generation itself, for the next request to go on
// from. Only one job at a time touches a generation (the view's one worker thread).
struct GenerationJob {
    struct Request {
        std::shared_ptr<const ModelSession> model;
        std::shared_ptr<TokenGeneration> generation;  // to go on from; null: start from `prompt`
        std::vector<int> prompt;
        GenerationRequest settings;
        // The sequence to reach before generating (prompt first); empty: the generation's own.
        std::vector<int> sequence;
        bool generate = true;  // add tokens after reaching `sequence`
        std::shared_ptr<std::atomic<bool>> cancel;
    };

    struct Update {
        bool finished = false;
        std::vector<int> ids;               // the sequence so far
        std::vector<GenerationStep> steps;  // finished: every step; else the newest only
        int prompt_length = 0;
        std::shared_ptr<TokenGeneration> generation;  // finished only (keeps the model alive)
        std::shared_ptr<const ModelRun> run;          // finished only
        bool cancelled = false;
        bool stopped_at_eos = false;
        QString error;  // finished only: nothing else is set
    };

    using Deliver = std::function<void(Update)>;
    static Update run(const Request& request, const Deliver& progress);  // any thread; returns the finished update
};

}  // namespace attn
