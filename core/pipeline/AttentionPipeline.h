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

    // A long input's route: the cells a block's side (CellBlocks) in which the engine reduces every
    // head to at most reduced_side x reduced_side blocks while it computes it, keeping one head's
    // probabilities (AttentionOptions::block_factor), or 0 for the ordinary pass that keeps every
    // head. Taken when the views reduce anyway (a side over reduced_side) and every head's
    // probabilities would take more than kLongRouteBytes: T = 8,192 with 12 heads (3 GB) does;
    // any input of up to reduced_side tokens never does.
    static constexpr std::int64_t kLongRouteBytes = std::int64_t(512) << 20;
    static int blockFactorFor(int query_len, int key_len, int num_heads, int reduced_side,
                              std::int64_t long_route_bytes = kLongRouteBytes);
    // config.padded_keys as one flag per key (empty when none), or why a position cannot be one.
    static Result<std::vector<bool>> keyPadding(const RunSettings& config, int key_len);

    // The whole computation for a prepared input and weights (built once, reused per keystroke).
    static Result<AttentionResult> run(const RunSettings& config, AttentionInput input, const LoadedWeights& weights,
                                       TraceDetail detail = TraceDetail::Full);
    // Cross-attention, forward(q, k, v): queries from `input`, keys and values from `kv_input`
    // (an input with no tokens means self-attention). The causal mask needs self-attention.
    // block_factor > 0 takes a long input's route (blockFactorFor), head kept_head's probabilities kept.
    static Result<AttentionResult> run(const RunSettings& config, AttentionInput input, AttentionInput kv_input,
                                       const LoadedWeights& weights, TraceDetail detail = TraceDetail::Full,
                                       int block_factor = 0, int kept_head = 0);
    // Convenience for one-shot callers (command line, tests): input from the sentence, weights
    // from the config. An empty or blank sentence is an error here.
    static Result<AttentionResult> run(const RunSettings& config, const QString& sentence,
                                       TraceDetail detail = TraceDetail::Full);
};

}  // namespace attn
