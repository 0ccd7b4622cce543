#pragma once

#include "core/model/ForwardCache.h"
#include "core/model/ModelTokenizer.h"
#include "core/model/TransformerModel.h"

#include <QString>

#include <memory>
#include <mutex>

namespace attn {

// A whole model opened from a Hugging Face folder: its weights (mapped from the folder's files)
// and its tokenizer, which turns the window's sentence into the model's tokens (null for a folder
// without tokenizer files: the window then takes token ids only).
struct OpenModel {
    QString dir;  // absolute
    std::unique_ptr<TransformerModel> model;
    std::unique_ptr<ModelTokenizer> tokenizer;
    // The keys and values of the last pass, so that typing at the end of the sentence computes
    // only the new tokens (GPT-2; other models run whole). Used by one worker job at a time.
    mutable std::mutex cache_mutex;
    mutable ForwardCache cache;

    // The token's string as convert_ids_to_tokens spells it, else the id in decimal.
    QString tokenText(int id) const;
    // Whether those strings are byte-level spellings ("Ġcat": GPT-2, Llama 3, Qwen2, GPT-NeoX).
    bool byteLevelTokens() const { return tokenizer && tokenizer->byteLevel(); }
};

// A model folder still to be read, shared by every job that needs it, as PendingWeights: the
// first job that runs reads it on the worker, the jobs after it find it read (or refused).
class PendingModel {
public:
    explicit PendingModel(const QString& dir) : m_dir(dir) {}
    const QString& dir() const { return m_dir; }

    // Reads the folder on the first call (any thread); later calls return the same outcome. A
    // refusal names the folder and the file: "gpt2: config.json: n_head: ...".
    Result<std::shared_ptr<const OpenModel>> get();

private:
    const QString m_dir;
    std::mutex m_mutex;
    bool m_done = false;
    std::shared_ptr<const OpenModel> m_model;
    QString m_error;
};

}  // namespace attn
