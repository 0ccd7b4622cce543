// Writes the small tokenizer.json files beside this script, one per pipeline shape of the models
// --model opens, and pipeline_ids.json: the ids Hugging Face's JavaScript tokenizers
// (@huggingface/tokenizers@0.2.0) give for a list of sentences with each. The C++ tests compare
// against that file; tests and CI never run node. Run once by hand when the sentences change:
//   cd "$(mktemp -d)" && npm install @huggingface/tokenizers@0.2.0
//   TOKENIZERS_JS="$PWD/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs" \
//     node /path/to/tests/data/tokenizers/make_pipeline_ids.mjs
//
// The vocabularies are made here, without training: the 256 byte symbols (or, for the
// SentencePiece shape, ASCII letters, "▁" and the 256 "<0x..>" byte tokens) and the first merges
// of GPT-2's merges.txt (tests/data/vocab/gpt2) that only use symbols already in the vocabulary.
// The components and options are those of the hub's tokenizer.json files:
//   llama3-style   Llama 3.x / SmolLM-like: Split (Llama 3 regex, Isolated) + ByteLevel without
//                  regex, ignore_merges, TemplateProcessing "<|begin_of_text|> $A" in a Sequence
//                  with ByteLevel; the regex written with possessive quantifiers as some
//                  conversions of it are;
//   qwen2-style    Qwen2 / Qwen2.5: NFC, Split (Qwen2 regex: single digits) + ByteLevel, ByteLevel
//                  post-processor (no BOS);
//   llama2-style   Llama 2 / TinyLlama: Prepend "▁" + Replace " " → "▁", BPE with byte_fallback,
//                  fuse_unk, "<s> $A";
//   mistral-style  the same vocabulary with Metaspace (prepend_scheme "first", no split) instead
//                  of the normalizers, as newer SentencePiece conversions write it;
//   neox-style     GPT-NeoX / Pythia: NFC, ByteLevel with GPT-2's regex, added tokens for runs of
//                  spaces (normalized, not special), ByteLevel post-processor.
//
// Tokenizers.js follows the Rust `tokenizers` library that transformers uses except in a few
// places; sentences that reach those places are listed under "deviations" below, and for them
// the file holds the ids of the Rust rules (derived by hand, with the reason) beside the ids
// Tokenizers.js gives.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modulePath = process.env.TOKENIZERS_JS;
const { Tokenizer } = await import(modulePath ? pathToFileURL(modulePath).href : "@huggingface/tokenizers");

const gpt2Merges = readFileSync(join(here, "../vocab/gpt2/merges.txt"), "utf8")
  .split("\n")
  .filter((l, i) => l.length > 0 && !(i === 0 && l.startsWith("#version")))
  .map((l) => l.split(" "));

// OpenAI's bytes_to_unicode: how byte-level BPE spells each byte.
const byteChars = (() => {
  const printable = [];
  for (let b = 0x21; b <= 0x7e; ++b) printable.push(b);
  for (let b = 0xa1; b <= 0xac; ++b) printable.push(b);
  for (let b = 0xae; b <= 0xff; ++b) printable.push(b);
  const chars = new Array(256);
  let next = 0;
  for (let b = 0; b < 256; ++b)
    chars[b] = String.fromCodePoint(printable.includes(b) ? b : 256 + next++);
  return chars;
})();

// The vocabulary grows from `base` by the first `count` GPT-2 merges whose parts it already has;
// `spell` rewrites a GPT-2 symbol (null: the merge is skipped).
function growVocabulary(base, count, spell) {
  const vocab = {};
  for (const token of base) vocab[token] = Object.keys(vocab).length;
  const merges = [];
  for (const [a, b] of gpt2Merges) {
    if (merges.length === count) break;
    const left = spell(a), right = spell(b);
    if (left === null || right === null || !(left in vocab) || !(right in vocab)) continue;
    const merged = left + right;
    if (merged in vocab) continue;
    vocab[merged] = Object.keys(vocab).length;
    merges.push(`${left} ${right}`);
  }
  return { vocab, merges };
}

const special = (id, content, extra = {}) => ({ id, content, single_word: false, lstrip: false, rstrip: false,
  normalized: false, special: true, ...extra });
const bpe = (vocab, merges, options = {}) => ({ type: "BPE", dropout: null, unk_token: null,
  continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false,
  ignore_merges: false, vocab, merges, ...options });
const byteLevel = (options = {}) => ({ type: "ByteLevel", add_prefix_space: false, trim_offsets: true,
  use_regex: true, ...options });

const LLAMA3_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const QWEN2_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

function byteLevelVocabulary(count) {
  return growVocabulary(byteChars, count, (s) => s);
}

function llama3() {
  const { vocab, merges } = byteLevelVocabulary(600);
  const bos = Object.keys(vocab).length, eos = bos + 1;
  return {
    version: "1.0", truncation: null, padding: null,
    added_tokens: [special(bos, "<|begin_of_text|>"), special(eos, "<|end_of_text|>")],
    normalizer: null,
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "Split", pattern: { Regex: LLAMA3_REGEX }, behavior: "Isolated", invert: false },
      byteLevel({ use_regex: false }) ] },
    post_processor: { type: "Sequence", processors: [
      { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
      { type: "TemplateProcessing",
        single: [{ SpecialToken: { id: "<|begin_of_text|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
        pair: [{ SpecialToken: { id: "<|begin_of_text|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
          { SpecialToken: { id: "<|begin_of_text|>", type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
        special_tokens: { "<|begin_of_text|>": { id: "<|begin_of_text|>", ids: [bos], tokens: ["<|begin_of_text|>"] } } },
    ] },
    decoder: byteLevel(),
    model: bpe(vocab, merges, { ignore_merges: true }),
  };
}

function qwen2() {
  const { vocab, merges } = byteLevelVocabulary(500);
  const first = Object.keys(vocab).length;
  return {
    version: "1.0", truncation: null, padding: null,
    added_tokens: [special(first, "<|endoftext|>"), special(first + 1, "<|im_start|>"), special(first + 2, "<|im_end|>")],
    normalizer: { type: "NFC" },
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "Split", pattern: { Regex: QWEN2_REGEX }, behavior: "Isolated", invert: false },
      byteLevel({ use_regex: false }) ] },
    post_processor: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
    decoder: byteLevel({ use_regex: false }),
    model: bpe(vocab, merges),
  };
}

function sentencePieceVocabulary() {
  const base = ["<unk>", "<s>", "</s>"];
  for (let b = 0; b < 256; ++b) base.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
  base.push("\u2581");
  for (let c = 0x21; c <= 0x7e; ++c) base.push(String.fromCharCode(c));
  const ascii = /^[\x21-\x7e\u0120]+$/;
  return growVocabulary(base, 500, (s) => (ascii.test(s) ? s.replaceAll("\u0120", "\u2581") : null));
}

function llama2() {
  const { vocab, merges } = sentencePieceVocabulary();
  return {
    version: "1.0", truncation: null, padding: null,
    added_tokens: [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")],
    normalizer: { type: "Sequence", normalizers: [
      { type: "Prepend", prepend: "\u2581" },
      { type: "Replace", pattern: { String: " " }, content: "\u2581" } ] },
    pre_tokenizer: null,
    post_processor: { type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "<s>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
      pair: [{ SpecialToken: { id: "<s>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "<s>", type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
      special_tokens: { "<s>": { id: "<s>", ids: [1], tokens: ["<s>"] } } },
    decoder: { type: "Sequence", decoders: [{ type: "Replace", pattern: { String: "\u2581" }, content: " " },
      { type: "ByteFallback" }, { type: "Fuse" }, { type: "Strip", content: " ", start: 1, stop: 0 }] },
    model: bpe(vocab, merges, { unk_token: "<unk>", fuse_unk: true, byte_fallback: true }),
  };
}

function mistral() {
  const json = llama2();
  json.normalizer = null;
  json.pre_tokenizer = { type: "Metaspace", replacement: "\u2581", prepend_scheme: "first", split: false };
  json.decoder = { type: "Metaspace", replacement: "\u2581", prepend_scheme: "first", split: false };
  return json;
}

function neox() {
  const { vocab, merges } = byteLevelVocabulary(500);
  const first = Object.keys(vocab).length;
  const spaces = [2, 3, 4].map((n, i) => ({ id: first + 2 + i, content: " ".repeat(n), single_word: false,
    lstrip: false, rstrip: false, normalized: true, special: false }));
  return {
    version: "1.0", truncation: null, padding: null,
    added_tokens: [special(first, "<|endoftext|>"), special(first + 1, "<|padding|>"), ...spaces],
    normalizer: { type: "NFC" },
    pre_tokenizer: byteLevel({ add_prefix_space: false }),
    post_processor: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
    decoder: byteLevel(),
    model: bpe(vocab, merges),
  };
}

// Vocabularies small enough for the 128-token embeddings of tests/fixtures/models/llama-tiny, so
// its weights can run on a sentence: byte-level with only printable ASCII and the space byte (other
// characters are dropped, as Hugging Face drops what a BPE without unknown token cannot spell),
// and SentencePiece-style with ASCII letters, digits, some punctuation and the two byte tokens of "é".
function llama3Tiny() {
  const json = llama3();
  const base = [byteChars[0x20]];
  for (let b = 0x21; b <= 0x7e; ++b) base.push(byteChars[b]);
  const { vocab, merges } = growVocabulary(base, 30, (s) => s);
  const bos = Object.keys(vocab).length;
  json.added_tokens = [special(bos, "<|begin_of_text|>"), special(bos + 1, "<|end_of_text|>")];
  json.post_processor.processors[1].special_tokens["<|begin_of_text|>"].ids = [bos];
  json.model = bpe(vocab, merges, { ignore_merges: true });
  return json;
}

// Qwen2's pipeline on the same printable-ASCII byte-level base, for qwen2-tiny's 160 embeddings.
function qwen2Tiny() {
  const json = qwen2();
  const base = [byteChars[0x20]];
  for (let b = 0x21; b <= 0x7e; ++b) base.push(byteChars[b]);
  const { vocab, merges } = growVocabulary(base, 60, (s) => s);
  const first = Object.keys(vocab).length;
  json.added_tokens = [special(first, "<|endoftext|>"), special(first + 1, "<|im_start|>"), special(first + 2, "<|im_end|>")];
  json.model = bpe(vocab, merges);
  return json;
}

function llama2Tiny() {
  const json = llama2();
  const base = ["<unk>", "<s>", "</s>", "<0xC3>", "<0xA9>", "\u2581"];
  for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,'-!?") base.push(c);
  const ascii = /^[\x21-\x7e\u0120]+$/;
  const { vocab, merges } = growVocabulary(base, 50, (s) => (ascii.test(s) ? s.replaceAll("\u0120", "\u2581") : null));
  json.model = bpe(vocab, merges, { unk_token: "<unk>", fuse_unk: true, byte_fallback: true });
  return json;
}

const tokenizers = { "llama3-style": llama3(), "qwen2-style": qwen2(), "llama2-style": llama2(),
  "mistral-style": mistral(), "neox-style": neox(), "llama3-tiny": llama3Tiny(), "llama2-tiny": llama2Tiny(), "qwen2-tiny": qwen2Tiny() };

// [name, text]; every sentence goes through every tokenizer.
const sentences = [
  ["default sentence", "The cat sat on the rug and it was dry-cleaned."],
  ["hello world", "Hello world"],
  ["contractions upper case", "I'LL do it, you'D've thought. SHE'S here; they're not, WE'VE gone."],
  ["apostrophes", "'quoted' words, rock 'n' roll, believin'"],
  ["numbers", "1234567 and 12,345.67 or 2024-01-31"],
  ["digits after letters", "abc123def 4x4"],
  ["runs of spaces", "a  b   c    d"],
  ["trailing spaces", "trailing   "],
  ["leading spaces", "   leading"],
  ["one leading space", " one"],
  ["only spaces", "     "],
  ["newlines", "line one\n\nline two\n  \n indented\r\nwindows"],
  ["tabs", "a \t b\t\tc"],
  ["python code", "def f(x):\n\treturn x  + 1\n"],
  ["punctuation runs", "wait... what?!? (yes) [no] {maybe} <tag/>"],
  ["punctuation then newline", "end.\n\nNext"],
  ["accents precomposed", "caf\u00e9 na\u00efve r\u00e9sum\u00e9"],
  ["accents decomposed", "cafe\u0301 nai\u0308ve re\u0301sume\u0301"],
  ["chinese", "\u6211\u7231\u732b\u3002"],
  ["cjk mixed with latin", "Tokyo \u6771\u4eac 2024\u5e74"],
  ["emoji", "hi \ud83d\udc4b\ud83c\udffd! \ud83d\ude00\ud83d\ude03"],
  ["no-break space", "a\u00a0b price:\u00a0100\u00a0\u20ac"],
  ["long s contraction", "it\u017fs it'\u017f IT'S it's"],
  ["special token inside text", "Hello<|endoftext|>World <|begin_of_text|> <s> x</s>"],
  ["underscore and marker", "snake_case \u2581marker"],
  ["unknown characters", "\u0000\u0001 bell\u0007"],
  ["added token first", "<s>Hello</s>world <|endoftext|> again"],
  ["added token last", "Hi <s>"],
  ["compatibility characters", "\ufb01ne \u2460 \uff21"],
  ["byte-order mark after a space", "x \ufeffy"],
  ["next line characters", "a\u0085\u0085b"],
  ["supplementary ideograph", "a\ud840\udc00b 1\ud835\udfcf"],
];

// None of the sentences below needs one: on the byte-order-mark and next-line sentences the two
// libraries' regexes can split differently (JavaScript's \s holds U+FEFF and not U+0085), but no merge
// of these vocabularies spans the difference, so the ids agree. Tokenizers.js's Split implements
// only the Isolated and Removed behaviours and reads invert differently; the files here use
// Isolated, and tests/core/test_tokenizers_steps.cpp checks the others on the Rust rules.
const deviations = {};

const out = { generator: "tests/data/tokenizers/make_pipeline_ids.mjs with @huggingface/tokenizers 0.2.0",
  tokenizers: {} };
for (const [name, json] of Object.entries(tokenizers)) {
  mkdirSync(join(here, name), { recursive: true });
  writeFileSync(join(here, name, "tokenizer.json"), JSON.stringify(json) + "\n");
  const tokenizer = new Tokenizer(json, {});
  out.tokenizers[name] = sentences.map(([caseName, text]) => {
    const encoding = tokenizer.encode(text);
    const deviation = deviations[name]?.[caseName];
    if (!deviation) return { name: caseName, text, ids: encoding.ids, tokens: encoding.tokens };
    return { name: caseName, text, ids: deviation.ids, tokens: deviation.tokens, deviation: deviation.reason,
      tokenizers_js_ids: encoding.ids };
  });
}
writeFileSync(join(here, "pipeline_ids.json"), JSON.stringify(out, null, 1) + "\n");
