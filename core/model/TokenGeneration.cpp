#include "core/model/TokenGeneration.h"

#include "core/model/TokenPredictions.h"
#include "core/model/TransformerForward.h"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

// The k largest logits of a row, best first (ties: the lower id first), with their softmax
// probabilities over the whole row.
void alternatives(const float* logits, int vocab, int k, GenerationStep& step)
{
    k = std::min(k, vocab);
    std::vector<int>& ids = step.top_ids;
    ids.clear();
    for (int id = 0; id < vocab; ++id) {
        const float value = logits[id];
        if (int(ids.size()) == k && !(value > logits[ids.back()]))
            continue;
        auto at =
            std::upper_bound(ids.begin(), ids.end(), value, [logits](float v, int other) { return v > logits[other]; });
        ids.insert(at, id);
        if (int(ids.size()) > k)
            ids.pop_back();
    }
    const float largest = ids.empty() ? 0.0f : logits[ids.front()];
    double total = 0.0;
    for (int id = 0; id < vocab; ++id)
        total += std::exp(double(logits[id]) - double(largest));
    step.top_logits.clear();
    step.top_p.clear();
    for (int id : ids) {
        step.top_logits.push_back(logits[id]);
        step.top_p.push_back(float(std::exp(double(logits[id]) - double(largest)) / total));
    }
}

// [top rows of `prompt`; one matrix per appended token]: (rows, cols) of a matrix of the whole sequence.
template <typename RowsOf>
Matrix stackedRows(const Matrix& prompt, int prompt_rows, const std::vector<AppendedRows>& appended, RowsOf rows_of)
{
    if (prompt.size() == 0)
        return Matrix();
    Eigen::Index total = prompt_rows;
    for (const AppendedRows& rows : appended)
        total += rows_of(rows).rows();
    Matrix all(total, prompt.cols());
    all.topRows(prompt_rows) = prompt.topRows(prompt_rows);
    Eigen::Index at = prompt_rows;
    for (const AppendedRows& rows : appended) {
        const Matrix& part = rows_of(rows);
        all.middleRows(at, part.rows()) = part;
        at += part.rows();
    }
    return all;
}

}  // namespace

TokenGeneration::TokenGeneration(const TransformerModel& model, const GenerationRequest& request)
    : m_model(model), m_request(request), m_sampler(request.sampling)
{
}

Status TokenGeneration::plan(const TransformerModel& model, const std::vector<int>& prompt,
                             const GenerationRequest& request)
{
    const ModelConfig& config = model.config();
    if (!config.causal)
        return Error{QStringLiteral("only causal models generate (GPT-2, Llama, Qwen2, Mistral, GPT-NeoX); "
                                    "%1 sees the whole input at once")
                         .arg(config.model_type)};
    if (!model.hasPredictionHead())
        return Error{QStringLiteral("the model folder has no prediction head (%1)").arg(model.weights().head_missing)};
    if (request.max_new_tokens < 1 || request.max_new_tokens > GenerationRequest::kMaxNewTokens)
        return Error{QStringLiteral("expected 1 to %1 new tokens, got %2")
                         .arg(GenerationRequest::kMaxNewTokens)
                         .arg(request.max_new_tokens)};
    if (Status s = request.sampling.check(); !s)
        return s;
    if (Status s = TransformerForward::checkInput(config, prompt, request.selected_layer); !s)
        return s;
    const std::int64_t final_length = std::int64_t(prompt.size()) + request.max_new_tokens;
    // Every causal model, rotary ones too (whose passes take any length): the command-line contract
    // bounds a generation by the positions the config states.
    if (final_length > config.max_positions)
        return Error{QStringLiteral("%1 tokens and %2 new ones are more than the model's %3 positions (%4)")
                         .arg(prompt.size())
                         .arg(request.max_new_tokens)
                         .arg(config.max_positions)
                         .arg(TransformerForward::positionsKey(config))};
    // The final sequence's maps (and the cache, smaller than them) against the same limit as a pass.
    if (Status s =
            TransformerForward::checkInput(config, std::vector<int>(size_t(final_length), 0), request.selected_layer);
        !s)
        return Error{QStringLiteral("%1 tokens and %2 new ones: %3")
                         .arg(prompt.size())
                         .arg(request.max_new_tokens)
                         .arg(s.error())};
    return {};
}

Result<std::unique_ptr<TokenGeneration>> TokenGeneration::start(const TransformerModel& model,
                                                                const std::vector<int>& prompt,
                                                                const GenerationRequest& request)
{
    if (Status s = plan(model, prompt, request); !s)
        return Error{s.error()};
    std::unique_ptr<TokenGeneration> generation(new TokenGeneration(model, request));
    const ModelConfig& config = model.config();
    auto run = TransformerForward::runAppending(config, model.weights(), prompt, request.selected_layer, nullptr, 0,
                                                generation->m_caches, request.keep_residual_stream);
    if (!run)
        return Error{run.error()};
    generation->m_prompt_run = std::move(run).value();
    generation->m_prompt_length = int(prompt.size());
    generation->m_ids = prompt;
    generation->m_ids.reserve(size_t(generation->maxLength()));
    if (config.rotary_dim > 0)
        generation->m_rotary = RotaryEmbedding(config, generation->maxLength());
    return generation;
}

Matrix TokenGeneration::lastHiddenRow(int position) const
{
    if (position < m_prompt_length)
        return m_prompt_run.last_hidden_state.row(position);
    return m_rows[size_t(position - m_prompt_length)].last_hidden_state.bottomRows(1);
}

Result<GenerationStep> TokenGeneration::nextStep(std::optional<int> forced)
{
    const int last = int(m_ids.size()) - 1;
    if (Status s = TokenPredictions::logits(m_model.config(), m_model.weights(), lastHiddenRow(last), m_logits); !s)
        return Error{s.error()};
    const int vocab = int(m_logits.cols());
    GenerationStep step;
    step.position = last + 1;
    alternatives(m_logits.data(), vocab, m_request.top_alternatives, step);
    step.forced = forced.has_value();
    step.token_id = forced ? *forced : m_sampler.choose(m_logits.data(), vocab);
    return step;
}

Status TokenGeneration::append(const GenerationStep& step)
{
    m_ids.push_back(step.token_id);
    const int first = int(m_ids.size()) - 1;
    auto rows = TransformerForward::appendTokens(m_model.config(), m_model.weights(), m_ids, first,
                                                 m_request.selected_layer, m_caches, m_request.keep_residual_stream,
                                                 m_rotary.isEmpty() ? nullptr : &m_rotary);
    if (!rows) {
        m_ids.pop_back();
        // appendTokens cleared the cache on its error: nothing more can be generated.
        m_cancelled = true;
        return Error{rows.error()};
    }
    m_rows.push_back(std::move(rows).value());
    m_steps.push_back(step);
    return {};
}

Status TokenGeneration::generate(const std::atomic<bool>* cancel, const StepCallback& on_step)
{
    m_cancelled = false;
    while (!m_stopped_at_eos && int(m_ids.size()) < maxLength()) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            m_cancelled = true;
            return {};
        }
        auto step = nextStep(std::nullopt);
        if (!step)
            return Error{step.error()};
        if (Status s = append(*step); !s)
            return s;
        m_stopped_at_eos =
            std::find(m_request.eos_ids.begin(), m_request.eos_ids.end(), step->token_id) != m_request.eos_ids.end();
        if (on_step)
            on_step(m_steps.back());
    }
    return {};
}

Status TokenGeneration::branch(int length, int token_id)
{
    if (length < m_prompt_length || length > int(m_ids.size()))
        return Error{QStringLiteral("a branch starts after the prompt (%1 tokens) and within the %2 tokens there are, "
                                    "not at %3")
                         .arg(m_prompt_length)
                         .arg(m_ids.size())
                         .arg(length)};
    if (length >= maxLength())
        return Error{QStringLiteral("the sequence is at its length of %1 tokens").arg(maxLength())};
    if (token_id < 0 || token_id >= m_model.config().vocab_size)
        return Error{QStringLiteral("token id %1 is outside the vocabulary (ids 0 to %2)")
                         .arg(token_id)
                         .arg(m_model.config().vocab_size - 1)};
    const size_t kept = size_t(length - m_prompt_length);
    m_ids.resize(size_t(length));
    m_rows.resize(kept);
    m_steps.resize(kept);
    for (KeyValueCache& layer : m_caches)
        layer.truncate(length);
    m_stopped_at_eos = false;
    auto step = nextStep(token_id);
    if (!step)
        return Error{step.error()};
    if (Status s = append(*step); !s)
        return s;
    m_stopped_at_eos =
        std::find(m_request.eos_ids.begin(), m_request.eos_ids.end(), token_id) != m_request.eos_ids.end();
    return {};
}

ModelRun TokenGeneration::run() const
{
    const ModelConfig& config = m_model.config();
    const ModelRun& prompt = m_prompt_run;
    const int length = int(m_ids.size());
    const int prompt_length = m_prompt_length;
    ModelRun run;
    run.token_ids = m_ids;
    run.selected_layer = prompt.selected_layer;
    run.num_kv_heads = prompt.num_kv_heads;
    run.attention = AttentionMaps(config.num_layers, config.num_heads, length, true);
    run.attention.setSlidingWindow(config.sliding_window);
    run.attention.copyRows(prompt.attention, prompt_length);
    for (const AppendedRows& rows : m_rows)
        for (int layer = 0; layer < config.num_layers; ++layer)
            run.attention.setRows(layer, rows.first, rows.attention[size_t(layer)]);
    run.last_hidden_state = stackedRows(prompt.last_hidden_state, prompt_length, m_rows,
                                        [](const AppendedRows& r) -> const Matrix& { return r.last_hidden_state; });
    run.layer_inputs.resize(prompt.layer_inputs.size());
    for (size_t layer = 0; layer < prompt.layer_inputs.size(); ++layer)
        run.layer_inputs[layer] =
            stackedRows(prompt.layer_inputs[layer], prompt_length, m_rows,
                        [layer](const AppendedRows& r) -> const Matrix& { return r.layer_inputs[layer]; });
    run.residual_stream.resize(prompt.residual_stream.size());
    for (size_t layer = 0; layer < prompt.residual_stream.size(); ++layer)
        run.residual_stream[layer] =
            stackedRows(prompt.residual_stream[layer], prompt_length, m_rows,
                        [layer](const AppendedRows& r) -> const Matrix& { return r.residual_stream[layer]; });
    run.layer_input = run.layer_inputs[size_t(run.selected_layer)];
    run.layer_trace = prompt.layer_trace;
    AttentionTrace& trace = run.layer_trace;
    trace.q = stackedRows(prompt.layer_trace.q, prompt_length, m_rows,
                          [](const AppendedRows& r) -> const Matrix& { return r.layer_trace.q; });
    trace.concat = stackedRows(prompt.layer_trace.concat, prompt_length, m_rows,
                               [](const AppendedRows& r) -> const Matrix& { return r.layer_trace.concat; });
    trace.output = stackedRows(prompt.layer_trace.output, prompt_length, m_rows,
                               [](const AppendedRows& r) -> const Matrix& { return r.layer_trace.output; });
    trace.k = m_caches[size_t(run.selected_layer)].k;  // every token's keys (rotated) and values
    trace.v = m_caches[size_t(run.selected_layer)].v;
    trace.query_offset = 0;
    run.q_before_rotation = stackedRows(prompt.q_before_rotation, prompt_length, m_rows,
                                        [](const AppendedRows& r) -> const Matrix& { return r.q_before_rotation; });
    run.k_before_rotation = stackedRows(prompt.k_before_rotation, prompt_length, m_rows,
                                        [](const AppendedRows& r) -> const Matrix& { return r.k_before_rotation; });
    return run;
}

}  // namespace attn
