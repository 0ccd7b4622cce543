#include "ui/controller/LayerPass.h"

#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/MemoryPlan.h"
#include "core/text/WordSplitter.h"
#include "ui/controller/PassCost.h"
#include "ui/controller/PendingWeights.h"

#include <algorithm>
#include <utility>

namespace attn {

int LayerPass::Request::seqLen() const
{
    return input ? int(input->tokens.size()) : int(WordSplitter::split(sentence).size());
}

LayerPass::Outcome LayerPass::run(const Request& job)
{
    Outcome outcome;
    std::shared_ptr<const LoadedWeights> weights = job.weights;
    if (!weights) {
        outcome.pending = job.pending;
        auto ready = job.pending->get();
        if (!ready) {
            outcome.error_field = job.pending->errorField();
            outcome.error = ready.error();
            return outcome;
        }
        weights = std::move(ready).value();
    }
    // The weights fix the dimensions (a file may differ from the panel's numbers).
    RunSettings effective = job.config;
    effective.d_model = weights->weights.dModel();
    effective.num_heads = weights->weights.num_heads;
    effective.input_dim = weights->weights.inputDim();
    TokenList tokens = job.input ? job.input->tokens : WordSplitter::split(job.sentence);
    if (tokens.isEmpty()) {
        outcome.error_field = SettingField::Sentence;
        outcome.error = tr("the sentence has no tokens");
        return outcome;
    }
    TokenList kv_tokens;  // none: self-attention
    if (!job.kv_sentence.trimmed().isEmpty()) {
        if (effective.causal) {
            outcome.error_field = SettingField::KvSentence;
            outcome.error = tr("the causal mask needs self-attention: switch it off (Ctrl+M) or clear this field");
            return outcome;
        }
        kv_tokens = WordSplitter::split(job.kv_sentence);
    }
    const qint64 seq_len = tokens.size();
    const qint64 key_len = kv_tokens.isEmpty() ? seq_len : kv_tokens.size();
    const TraceDetail detail = traceDetailFor(seq_len, effective.num_heads, key_len);
    // Planned before anything of T_q x T_kv size exists: the pass, the grid's heatmaps and the
    // head view's (each reduced to at most picture_cells), Compare's A, B and A - B.
    MemoryRequest need =
        MemoryPlan::forPass(int(seq_len), kv_tokens.isEmpty() ? 0 : int(key_len), weights->weights, detail);
    need.view_copies = weights->weights.num_heads + 1;
    need.view_cells = job.picture_cells;
    need.held = job.held_bytes;
    need.masked = effective.causal || !effective.padded_keys.isEmpty();
    // A long input: every head reduced to its picture as it is computed, one head's weights kept.
    const int block_factor =
        planLongRoute(need, int(seq_len), int(key_len), effective.num_heads, job.picture_cells, job.long_route_bytes);
    const int kept_head = std::clamp(job.kept_head, 0, std::max(0, effective.num_heads - 1));
    if (Status fits = MemoryPlan::check(need, job.memory_budget); !fits) {
        outcome.error_field = SettingField::Sentence;
        outcome.error = tr("%1 (Settings › Memory budget)").arg(fits.error());
        return outcome;
    }
    AttentionInput input = job.input ? *job.input : AttentionPipeline::inputFromTokens(std::move(tokens), effective);
    AttentionInput kv_input;  // no tokens: self-attention
    if (!kv_tokens.isEmpty())
        kv_input = AttentionPipeline::inputFromTokens(std::move(kv_tokens), effective);
    // Padded positions the keys do not reach are kept in the config (they come back when the
    // sentence grows again) but only the keys that exist are padded.
    effective.padded_keys.removeIf([key_len](int key) { return key < 0 || key >= key_len; });
    auto result = AttentionPipeline::run(effective, std::move(input), std::move(kv_input), *weights, detail,
                                         block_factor, kept_head);
    if (!result) {
        outcome.error_field = SettingField::Sentence;
        outcome.error = result.error();
        return outcome;
    }
    outcome.result = std::make_shared<const AttentionResult>(std::move(result).value());
    return outcome;
}

}  // namespace attn
