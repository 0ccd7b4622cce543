#pragma once

// Builds a tokenizer from Hugging Face's tokenizer.json: one JSON object whose fields describe
// the pipeline.
// - "added_tokens": [{"id", "content", "special", "single_word", "lstrip", "rstrip",
//   "normalized"}];
// - "normalizer", "pre_tokenizer": null or a step, as TokenizerJsonSteps.h lists them;
// - "model": {"type": "BPE", "vocab": {token: id}, "merges": ["a b", …] or [["a", "b"], …],
//   "unk_token", "fuse_unk", "ignore_merges", "byte_fallback"} or {"type": "WordPiece", "vocab",
//   "unk_token", "continuing_subword_prefix", "max_input_chars_per_word"}; older files leave out
//   "type";
// - "post_processor": null, {"type": "ByteLevel", "trim_offsets", "add_prefix_space"},
//   {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id"}} | {"Sequence": {"id"}}],
//   "special_tokens": {name: {"ids", "tokens"}}}, {"type": "BertProcessing" | "RobertaProcessing",
//   "cls": [token, id], "sep": [token, id]} or {"type": "Sequence", "processors": [step, …]}.
// "decoder", "truncation" and "padding" do not change the ids of a single text and are not read.
// transformers lets tokenizer_config.json override a few options (do_lower_case,
// strip_accents, tokenize_chinese_chars, add_prefix_space); where that file sets one to a value
// other than tokenizer.json's, the pair is refused rather than one of them guessed.
// transformers' LlamaTokenizerFast and GPTNeoXTokenizerFast replace the post-processor with
// their own from tokenizer_config.json's add_bos_token / add_eos_token; so does this reader for
// those classes. These are the components GPT-2, BERT, DistilBERT, Llama 2 / 3, Mistral, Qwen2 and
// GPT-NeoX use. Any other component, and any option that would change the result (BPE dropout,
// subword prefixes), is refused with an error naming it, never tokenised differently.

#include "core/base/Result.h"
#include "core/text/SubwordTokenizer.h"

#include <QJsonObject>

#include <memory>

namespace attn {

class TokenizerJsonReader {
public:
    // `config`: tokenizer_config.json, or an empty object.
    static Result<std::unique_ptr<SubwordTokenizer>> read(const QJsonObject& root, const QJsonObject& config = {});
};

}  // namespace attn
