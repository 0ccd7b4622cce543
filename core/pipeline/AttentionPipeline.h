#pragma once

#include "core/attention/AttentionOptions.h"
#include "core/base/Result.h"
#include "core/base/Tensor.h"
#include "core/pipeline/AttentionInput.h"
#include "core/pipeline/RunSettings.h"
#include "core/text/Token.h"
#include "core/weights/WeightFile.h"

#include <QStringList>

namespace attn {

struct AttentionResult;

// From what a user chose (a sentence or a matrix, and a RunSettings) to the engine's inputs.
// The window and the command line both go through here, so they always agree.
class AttentionPipeline {
public:
    // Tokens -> embeddings (+ sinusoidal positions when config.positional_encoding).
    // Zero tokens is a valid input with zero rows.
    static AttentionInput inputFromSentence(const QString& sentence, const RunSettings& config);
    static AttentionInput inputFromTokens(TokenList tokens, const RunSettings& config);
    // A matrix given directly (--input); labels default to "0", "1", ...
    static Result<AttentionInput> inputFromMatrix(Matrix x, const QStringList& labels);

    // Random or identity weights from the config's dimensions, or the config's weight file.
    static Result<LoadedWeights> buildWeights(const RunSettings& config);

    static AttentionOptions optionsFor(const RunSettings& config, TraceDetail detail);
    // config.padded_keys as one flag per key (empty when none), or why a position cannot be one.
    static Result<std::vector<bool>> keyPadding(const RunSettings& config, int key_len);

    // The whole computation for a prepared input and weights (built once, reused per keystroke).
    static Result<AttentionResult> run(const RunSettings& config, AttentionInput input, const LoadedWeights& weights,
                                       TraceDetail detail = TraceDetail::Full);
    // Cross-attention, forward(q, k, v): queries from `input`, keys and values from `kv_input`
    // (an input with no tokens means self-attention). The causal mask needs self-attention.
    static Result<AttentionResult> run(const RunSettings& config, AttentionInput input, AttentionInput kv_input,
                                       const LoadedWeights& weights, TraceDetail detail = TraceDetail::Full);
    // Convenience for one-shot callers (command line, tests): input from the sentence, weights
    // from the config. An empty or blank sentence is an error here.
    static Result<AttentionResult> run(const RunSettings& config, const QString& sentence,
                                       TraceDetail detail = TraceDetail::Full);
};

}  // namespace attn
