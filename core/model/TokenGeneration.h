#pragma once

#include "core/attention/KeyValueCache.h"
#include "core/model/AppendedRows.h"
#include "core/model/GenerationStep.h"
#include "core/model/ModelRun.h"
#include "core/model/RotaryEmbedding.h"
#include "core/model/SamplingSettings.h"
#include "core/model/TokenSampler.h"
#include "core/model/TransformerModel.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace attn {

// What a generation is asked for.
struct GenerationRequest {
    int max_new_tokens = 1;  // 1 .. kMaxNewTokens; the sequence never grows past prompt + this
    SamplingSettings sampling;
    std::vector<int> eos_ids;           // EndOfSequence::read; empty: no stop but the length
    int selected_layer = 0;             // the layer whose trace the final run keeps (the walkthrough's)
    bool keep_residual_stream = false;  // the final run's residual_stream (the logit lens)
    int top_alternatives = 5;           // GenerationStep::top_ids per step

    static constexpr int kMaxNewTokens = 4096;
};

// Generation with the key/value cache on a causal model (GPT-2, the Llama family, GPT-NeoX): a
// pass over the prompt fills one KeyValueCache per layer, then each step computes the logits of
// the last row (TokenPredictions), chooses a token (TokenSampler: greedy or seeded sampling),
// stops after an eos id, and runs that one token through every layer against the cache
// (TransformerForward::appendTokens), keeping its rows: its attention over every key of every
// layer and head, its layer inputs, its last hidden state. Memory grows by one token's rows per
// step (L H T attention weights, a few L C vectors) and nothing earlier is copied; run()
// assembles the whole sequence's ModelRun once, equal to one pass over the final ids up to the
// order of float32 sums (test_generation).
//   Branching: branch(length, id) goes back to the first `length` tokens (the cache truncated,
//   later steps forgotten) and appends `id` instead; generate() goes on from there.
// Not thread-safe; the model must outlive it. cancel is read between steps.
class TokenGeneration {
public:
    // Everything refused before anything is allocated: a bidirectional model, a folder without a
    // prediction head, max_new_tokens outside 1..kMaxNewTokens, bad sampling values, and a prompt
    // that checkInput refuses or whose final length (prompt + max_new_tokens) exceeds the model's
    // positions (n_positions / max_position_embeddings, rotary models too) or the attention maps'
    // limit. Messages name no option; the command line
    // adds it.
    static Status plan(const TransformerModel& model, const std::vector<int>& prompt, const GenerationRequest& request);

    // plan(), then the pass over the prompt.
    static Result<std::unique_ptr<TokenGeneration>> start(const TransformerModel& model, const std::vector<int>& prompt,
                                                          const GenerationRequest& request);

    using StepCallback = std::function<void(const GenerationStep&)>;
    // Adds tokens until the sequence has prompt + max_new_tokens, an eos id was added, or *cancel
    // is set (checked before each step); on_step is called after each token is in.
    Status generate(const std::atomic<bool>* cancel = nullptr, const StepCallback& on_step = {});

    // Keeps the first `length` tokens (promptLength() <= length <= length now) and appends
    // token_id as a forced step (its alternatives those of the model at that point).
    Status branch(int length, int token_id);

    const std::vector<int>& tokenIds() const { return m_ids; }
    int promptLength() const { return m_prompt_length; }
    int generated() const { return int(m_ids.size()) - m_prompt_length; }
    const std::vector<GenerationStep>& steps() const { return m_steps; }
    bool stoppedAtEos() const { return m_stopped_at_eos; }
    bool cancelled() const { return m_cancelled; }
    int maxLength() const { return m_prompt_length + m_request.max_new_tokens; }

    // The whole sequence's run: every layer's attention (L, H, T, T), layer inputs, last hidden
    // state, the selected layer's trace (and the residual stream when asked), as
    // TransformerModel::forward gives it for the final ids.
    ModelRun run() const;

private:
    TokenGeneration(const TransformerModel& model, const GenerationRequest& request);

    // The logits of the last token's row, its alternatives, and the token chosen (or forced).
    Result<GenerationStep> nextStep(std::optional<int> forced);
    // Runs the step's token through the layers against the cache.
    Status append(const GenerationStep& step);
    // Row `position` of the last hidden state, (1, C).
    Matrix lastHiddenRow(int position) const;

    const TransformerModel& m_model;
    GenerationRequest m_request;
    TokenSampler m_sampler;
    RotaryEmbedding m_rotary;  // maxLength() positions (rotary models)
    int m_prompt_length = 0;
    std::vector<int> m_ids;
    ModelRun m_prompt_run;                // the prompt's pass
    std::vector<AppendedRows> m_rows;     // one per token after the prompt
    std::vector<GenerationStep> m_steps;  // one per token after the prompt
    std::vector<KeyValueCache> m_caches;  // L, holding every token's keys and values
    Matrix m_logits;                      // (1, V), reused
    bool m_stopped_at_eos = false;
    bool m_cancelled = false;
};

}  // namespace attn
