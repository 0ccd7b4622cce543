#pragma once

#include "core/base/Result.h"
#include "core/model/ForwardCache.h"
#include "core/model/ModelRun.h"
#include "core/model/ModelTokenizer.h"
#include "core/model/TransformerModel.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <mutex>
#include <vector>

namespace attn {

// A whole model opened from a Hugging Face folder, as the command line and the window both use
// it: the model (weights mapped from the folder's files), its tokenizer when the folder has a
// usable one, and the keys and values of the last pass, so that typing at the end of a sentence
// computes only the new tokens. Read once, then shared (read-only but for the cache, which has a
// lock of its own) by every job that needs it.
class ModelSession {
public:
    // Opens `dir` with the one policy of the command line and the window:
    // - The model must load: a missing folder, config.json or tensor, or a refused config,
    //   refuses the folder with the file and the reason ("config.json: n_head: ..."); the caller
    //   names the folder.
    // - The tokenizer is needed to read text, and for nothing else. A folder without tokenizer
    //   files (the Llama family's, often) or with files that cannot be read (a malformed
    //   vocab.json, merges.txt without vocab.json, ...) still opens: token ids run as they are,
    //   each spelled by its id in decimal, and tokenizerProblem() says why there is no
    //   tokenizer, so that the window can note it when the folder opens and encode() refuses
    //   text with exactly that reason (the command line's `--model DIR: vocab.json: ...`).
    //   A broken tokenizer is not a broken model: the command-line contract needs no tokenizer
    //   with --token-ids and refuses malformed tokenizer files only where text needs them.
    static Result<std::unique_ptr<ModelSession>> open(const QString& dir);

    const QString& dir() const { return m_dir; }  // absolute
    const TransformerModel& model() const { return *m_model; }
    const ModelConfig& config() const { return m_model->config(); }

    // Null when the folder has no usable tokenizer; tokenizerProblem() then says why:
    // "no tokenizer files (...)" or the file and its fault ("vocab.json: ...").
    const ModelTokenizer* tokenizer() const { return m_tokenizer.get(); }
    const QString& tokenizerProblem() const { return m_tokenizer_problem; }
    // Whether the folder has tokenizer files that could not be read (not merely none at all).
    bool tokenizerBroken() const { return !m_tokenizer && m_has_tokenizer_files; }

    // The ids of a text as AutoTokenizer(text) gives them. Refused without a tokenizer (the
    // reason is tokenizerProblem()) and for a text that gives no tokens.
    Result<std::vector<int>> encode(const QString& text) const;

    // The token's string as convert_ids_to_tokens spells it, else the id in decimal.
    QString tokenText(int id) const;
    QStringList tokenTexts(const std::vector<int>& ids) const;
    // Whether those strings are byte-level spellings ("Ġcat": GPT-2, Llama 3, Qwen2, GPT-NeoX).
    bool byteLevelTokens() const { return m_tokenizer && m_tokenizer->byteLevel(); }
    // The tokens as the views label them (TokenPiece::label: "Ġcat" -> "␣cat").
    QStringList tokenLabels(const QStringList& texts) const;

    // The positions the prediction head predicts at for an input: every position for a causal
    // model (the next token), each [MASK] for the BERT family (known only from a tokenizer).
    std::vector<int> predictedPositions(const std::vector<int>& ids) const;

    // TransformerModel::forward with the session's cache (live typing): one call at a time,
    // from any thread.
    Result<std::shared_ptr<const ModelRun>> forwardWithCache(const std::vector<int>& ids, int selected_layer,
                                                             bool keep_residual_stream = false) const;

private:
    ModelSession() = default;

    QString m_dir;
    std::unique_ptr<TransformerModel> m_model;
    std::unique_ptr<ModelTokenizer> m_tokenizer;
    QString m_tokenizer_problem;
    bool m_has_tokenizer_files = false;
    mutable std::mutex m_cache_mutex;
    mutable ForwardCache m_cache;
};

}  // namespace attn
