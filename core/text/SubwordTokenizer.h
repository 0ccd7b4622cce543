#pragma once

#include "core/text/AddedVocabulary.h"
#include "core/text/PostProcessor.h"
#include "core/text/PreTokenizer.h"
#include "core/text/SubwordEncoding.h"
#include "core/text/SubwordModel.h"
#include "core/text/TextNormalizer.h"

#include <QSet>

#include <memory>
#include <optional>

namespace attn {

// A trained subword tokenizer (GPT-2's byte-level BPE, BERT's WordPiece, …) built the way
// Hugging Face's `tokenizers` library builds one, so it gives the ids a real model was trained
// on. A text goes through:
// 1. added tokens: special and added tokens are cut out of the text first and never split;
// 2. the normalizer (optional) rewrites each remaining piece;
// 3. the pre-tokenizer (optional) cuts a piece into words;
// 4. the model splits each word into vocabulary tokens;
// 5. the post-processor (optional) adds special tokens such as [CLS] and [SEP].
// loadTokenizer (TokenizerLoader.h) builds one from a model folder.
class SubwordTokenizer {
public:
    struct Parts {
        AddedVocabulary added;
        std::unique_ptr<TextNormalizer> normalizer;
        std::unique_ptr<PreTokenizer> preTokenizer;
        std::unique_ptr<SubwordModel> model;  // required
        std::unique_ptr<PostProcessor> postProcessor;
    };

    explicit SubwordTokenizer(Parts parts);

    // As `tokenizer(text)`; without special tokens as `tokenizer(text, add_special_tokens=False)`.
    SubwordEncoding encode(const QString& text, bool addSpecialTokens = true) const;

    // As `convert_ids_to_tokens`; empty for an id no token has.
    QString idToToken(int id) const;
    std::optional<int> tokenToId(const QString& token) const;
    // One past the highest id, added tokens included: the rows an embedding matrix needs.
    int vocabSize() const;
    bool isSpecial(int id) const { return m_specialIds.contains(id); }
    // Tokens spelled in the byte-level alphabet (GPT-2, Llama 3, Qwen2, GPT-NeoX: "Ġcat").
    bool byteLevel() const { return m_parts.preTokenizer && m_parts.preTokenizer->byteLevel(); }

private:
    void encodePiece(const NormalizedText& piece, SubwordEncoding& out) const;
    void appendAdded(int id, const NormalizedText& piece, SubwordEncoding& out) const;

    Parts m_parts;
    QSet<int> m_specialIds;
};

}  // namespace attn
