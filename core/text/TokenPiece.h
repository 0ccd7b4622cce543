#pragma once

#include <QString>

namespace attn {

// A model's token as a person reads it, from its spelling (convert_ids_to_tokens):
//   byte-level BPE (GPT-2)  "Ġcat" -> leading space + "cat"; "ention" after a piece -> continues
//                           it; the bytes decoded as UTF-8 ("âĢĻ" -> "’") unless the piece
//                           splits a character; a line feed shown as ↵, a tab as ⇥
//   WordPiece (BERT)        "##ing" -> continues the piece before + "ing"
//   SentencePiece (Llama 2) "▁cat" -> leading space + "cat"
//   special tokens          [CLS], [SEP], [MASK], [PAD], [UNK], <|endoftext|>, <s>, </s>: as spelled
struct TokenPiece {
    QString spelled;
    QString text;                // without the marks
    bool leading_space = false;  // the piece starts a word after a space
    bool continuation = false;   // the piece continues the word of the piece before
    bool special = false;

    // previous: the piece before, if any (a byte-level piece without a space continues it).
    static TokenPiece of(const QString& spelled, bool byte_level, const TokenPiece* previous = nullptr);
    // One short label for axes and tables: the text, a leading space as ␣, WordPiece's ## kept.
    QString label() const;

    static constexpr char16_t kSpaceMark = u'\u2423';           // ␣
    static constexpr char16_t kSentencePieceSpace = u'\u2581';  // ▁
};

}  // namespace attn
