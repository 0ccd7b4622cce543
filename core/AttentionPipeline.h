#pragma once

#include "AttentionOptions.h"
#include "ModelConfig.h"
#include "Result.h"
#include "Tensor.h"
#include "Token.h"
#include "WeightFile.h"

#include <QStringList>

namespace attn {

struct AttentionResult;

// The rows that go into attention, with a label for each.
struct AttentionInput {
    TokenList tokens;  // one per row of x
    Matrix x;          // (seq_len, input_dim)
    Matrix positional; // (seq_len, input_dim): the part of x that is positional encoding, or empty
};

// From what a user chose (a sentence or a matrix, and a ModelConfig) to the engine's inputs.
// The window and the command line both go through here, so they always agree.
class AttentionPipeline {
public:
    // Tokens -> embeddings (+ sinusoidal positions when config.positional_encoding).
    // Zero tokens is a valid input with zero rows.
    static AttentionInput inputFromSentence(const QString& sentence, const ModelConfig& config);
    static AttentionInput inputFromTokens(TokenList tokens, const ModelConfig& config);
    // A matrix given directly (--input); labels default to "0", "1", ...
    static Result<AttentionInput> inputFromMatrix(Matrix x, const QStringList& labels);

    // Random or identity weights from the config's dimensions, or the config's weight file.
    static Result<LoadedWeights> buildWeights(const ModelConfig& config);

    static AttentionOptions optionsFor(const ModelConfig& config, TraceDetail detail);

    // The whole computation for a prepared input and weights (built once, reused per keystroke).
    static Result<AttentionResult> run(const ModelConfig& config, AttentionInput input,
                                       const LoadedWeights& weights,
                                       TraceDetail detail = TraceDetail::Full);
    // Convenience for one-shot callers (command line, tests): input from the sentence, weights
    // from the config. An empty or blank sentence is an error here.
    static Result<AttentionResult> run(const ModelConfig& config, const QString& sentence,
                                       TraceDetail detail = TraceDetail::Full);
};

}  // namespace attn
