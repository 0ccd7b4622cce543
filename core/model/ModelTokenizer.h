#pragma once

#include "core/base/Result.h"

#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace attn {

// What --model needs of a folder's tokenizer: the ids of a sentence as
// AutoTokenizer.from_pretrained(folder)(text) gives them (special tokens included), and the
// string of an id as convert_ids_to_tokens spells it.
class ModelTokenizer {
public:
    virtual ~ModelTokenizer() = default;

    // True when the folder has any tokenizer file: tokenizer.json, vocab.json, merges.txt, vocab.txt.
    static bool hasFiles(const QString& dir);
    // The folder's tokenizer; an error naming the file when the files are missing or malformed.
    static Result<std::unique_ptr<ModelTokenizer>> load(const QString& dir);

    virtual std::vector<int> encode(const QString& text) const = 0;
    virtual QString tokenText(int id) const = 0;  // empty when no token has that id
    virtual std::optional<int> tokenId(const QString& token) const = 0;
    // Whether tokenText spells bytes in the byte-level alphabet ("Ġcat"), as GPT-2, Llama 3,
    // Qwen2 and GPT-NeoX do, rather than text (WordPiece, SentencePiece's "▁cat").
    virtual bool byteLevel() const = 0;
};

}  // namespace attn
