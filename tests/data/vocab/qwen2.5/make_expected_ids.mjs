// Writes expected_ids.json beside this script for Qwen2.5's real tokenizer.json (committed here):
//   published  ids published by Hugging Face for this vocabulary: transformers'
//              tests/models/qwen2/test_tokenization_qwen2.py, test_tokenizer_integration, run on
//              Qwen/Qwen-tokenizer (revision 5909c8222473b2c73b0b73fb054552cd4ef6a8eb; the same
//              151,643 BPE tokens), each sequence's padding removed by its attention mask;
//   js         the ids Hugging Face's JavaScript tokenizers (@huggingface/tokenizers@0.2.0) give
//              for the sentences of ../../tokenizers/pipeline_ids.json and the published ones.
// Checked here first: the JavaScript ids equal the published ones. Tests and CI never run node.
// Run once by hand:
//   cd "$(mktemp -d)" && npm install @huggingface/tokenizers@0.2.0
//   TOKENIZERS_JS="$PWD/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs" \
//     node /path/to/tests/data/vocab/qwen2.5/make_expected_ids.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modulePath = process.env.TOKENIZERS_JS;
const { Tokenizer } = await import(modulePath ? pathToFileURL(modulePath).href : "@huggingface/tokenizers");

const published = [
  ["transformers integration: English",
    "Transformers (formerly known as pytorch-transformers and pytorch-pretrained-bert) provides " +
    "general-purpose architectures (BERT, GPT-2, RoBERTa, XLM, DistilBert, XLNet...) for Natural " +
    "Language Understanding (NLU) and Natural Language Generation (NLG) with over 32+ pretrained " +
    "models in 100+ languages and deep interoperability between Jax, PyTorch and TensorFlow.",
    [8963, 388, 320, 69514, 3881, 438, 4510, 27414, 32852, 388, 323, 4510, 27414, 21334, 35722, 1455, 529, 8,
     5707, 4586, 58238, 77235, 320, 61437, 11, 479, 2828, 12, 17, 11, 11830, 61437, 64, 11, 1599, 10994, 11,
     27604, 321, 33, 529, 11, 29881, 6954, 32574, 369, 18448, 11434, 45451, 320, 45, 23236, 8, 323, 18448,
     11434, 23470, 320, 30042, 38, 8, 448, 916, 220, 18, 17, 10, 80669, 4119, 304, 220, 16, 15, 15, 10, 15459,
     323, 5538, 94130, 2897, 1948, 619, 706, 11, 5355, 51, 21584, 323, 94986, 13]],
  ["transformers integration: Chinese and emoji",
    "🤗 Transformers 提供了可以轻松地下载并且训练先进的预训练模型的 API 和工具。使用预训练模型可以减少计算消耗和碳排放，并且节省从头训练所需要的时间和资源。",
    [144834, 80532, 93685, 83744, 34187, 73670, 104261, 29490, 62189, 103937, 104034, 102830, 98841, 104034,
     104949, 9370, 5333, 58143, 102011, 1773, 37029, 98841, 104034, 104949, 73670, 101940, 100768, 104997,
     33108, 100912, 105054, 90395, 100136, 106831, 45181, 64355, 104034, 113521, 101975, 33108, 85329, 1773]],
  ["transformers integration: code",
    "```python\ntokenizer = AutoTokenizer.from_pretrained(\"Qwen/Qwen-tokenizer\")\ntokenizer(\"世界，你好！\")```",
    [73594, 12669, 198, 85593, 284, 8979, 37434, 6387, 10442, 35722, 445, 48, 16948, 45274, 16948, 34841, 3135,
     1138, 85593, 445, 99489, 3837, 108386, 6313, 899, 73594]],
];

const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(here, "tokenizer.json"), "utf8")), {});
for (const [name, text, ids] of published) {
  const js = tokenizer.encode(text).ids;
  if (JSON.stringify(js) !== JSON.stringify(ids))
    throw new Error(`${name}: Tokenizers.js gives ${JSON.stringify(js)}`);
}
const pipeline = JSON.parse(readFileSync(join(here, "../../tokenizers/pipeline_ids.json"), "utf8"));
const sentences = Object.values(pipeline.tokenizers)[0].map((c) => [c.name, c.text]);
const out = {
  generator: "tests/data/vocab/qwen2.5/make_expected_ids.mjs with @huggingface/tokenizers 0.2.0",
  published: published.map(([name, text, ids]) => ({ name, text, ids })),
  js: [...sentences, ...published.map(([name, text]) => [name, text])].map(([name, text]) => {
    const encoding = tokenizer.encode(text);
    return { name, text, ids: encoding.ids, tokens: encoding.tokens };
  }),
};
writeFileSync(join(here, "expected_ids.json"), JSON.stringify(out, null, 1) + "\n");
