#include "ui/views/generate/GenerationJob.h"

#include <algorithm>

namespace attn {
namespace {

// A generation that keeps its model open as long as it lives.
std::shared_ptr<TokenGeneration> holdingModel(std::unique_ptr<TokenGeneration> generation,
                                              std::shared_ptr<const ModelSession> model)
{
    return std::shared_ptr<TokenGeneration>(generation.release(),
                                            [model = std::move(model)](TokenGeneration* g) { delete g; });
}

// Brings `generation` to `sequence` (its prompt first): back to the tokens both share, then each
// further token of `sequence` forced (TokenGeneration::branch).
Status reach(TokenGeneration& generation, const std::vector<int>& sequence)
{
    const std::vector<int>& ids = generation.tokenIds();
    const auto differ = std::mismatch(ids.begin(), ids.end(), sequence.begin(), sequence.end());
    int shared = int(differ.first - ids.begin());
    if (shared == int(ids.size()) && shared == int(sequence.size()))
        return {};
    // A sequence that ends inside the one in hand: its last token forced again after the rest.
    if (shared == int(sequence.size()))
        --shared;
    for (int length = shared; length < int(sequence.size()); ++length)
        if (Status s = generation.branch(length, sequence[size_t(length)]); !s)
            return s;
    return {};
}

}  // namespace

GenerationJob::Update GenerationJob::run(const Request& request, const Deliver& progress)
{
    Update done;
    done.finished = true;
    std::shared_ptr<TokenGeneration> generation = request.generation;
    if (!generation) {
        auto started = TokenGeneration::start(request.model->model(), request.prompt, request.settings);
        if (!started) {
            done.error = started.error();
            return done;
        }
        generation = holdingModel(std::move(started).value(), request.model);
    }
    if (!request.sequence.empty()) {
        if (Status s = reach(*generation, request.sequence); !s) {
            done.error = s.error();
            return done;
        }
    }
    if (request.generate && generation->tokenIds().size() < size_t(generation->maxLength()) &&
        !(generation->stoppedAtEos() && request.sequence.empty())) {
        const auto on_step = [&](const GenerationStep& step) {
            if (!progress)
                return;
            Update update;
            update.ids = generation->tokenIds();
            update.steps = {step};
            update.prompt_length = generation->promptLength();
            progress(std::move(update));
        };
        if (Status s = generation->generate(request.cancel.get(), on_step); !s) {
            done.error = s.error();
            return done;
        }
    }
    done.ids = generation->tokenIds();
    done.steps = generation->steps();
    done.prompt_length = generation->promptLength();
    done.cancelled = generation->cancelled();
    done.stopped_at_eos = generation->stoppedAtEos();
    done.run = std::make_shared<const ModelRun>(generation->run());
    done.generation = std::move(generation);
    return done;
}

}  // namespace attn
