#pragma once

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"
#include "core/pipeline/SettingField.h"
#include "core/weights/LoadedWeights.h"

#include <QCoreApplication>
#include <QString>

#include <cstdint>
#include <memory>

namespace attn {

class PendingWeights;

// One attention layer's pass over the sentence (or an example's rows) under the settings' weights:
// the controller's result while no whole model is open. What it needs is copied into a Request, so
// the GUI thread may change its state while the pass runs on the worker.
class LayerPass {
    Q_DECLARE_TR_FUNCTIONS(LayerPass)

public:
    struct Request {
        RunSettings config;
        QString sentence;
        QString kv_sentence;  // cross-attention: keys and values from this sentence; empty = self-attention
        std::shared_ptr<const LoadedWeights> weights;  // ready; else built or read through `pending`
        std::shared_ptr<PendingWeights> pending;
        std::shared_ptr<const AttentionInput> input;  // an example's rows; null: from the sentence
        std::int64_t memory_budget = 0;
        std::int64_t picture_cells = 0;  // what one heatmap holds at most (MemoryRequest::view_cells)
        std::int64_t held_bytes = 0;     // the result on screen, kept until this one replaces it
        int kept_head = 0;               // a long input's head whose weights are kept (blockFactorFor)
        std::int64_t long_route_bytes = 0;

        int seqLen() const;  // of the input, before the pass
    };

    struct Outcome {
        std::shared_ptr<PendingWeights> pending;  // the weights this pass built or read, or failed to
        std::shared_ptr<const AttentionResult> result;
        SettingField error_field = SettingField::Sentence;
        QString error;
    };

    // Plans the pass's memory, refuses what does not fit, and runs it (any thread).
    static Outcome run(const Request& request);
};

}  // namespace attn
