// Writes the seed corpus of the fuzz targets with the tests' own writers and fixtures: small valid
// files of every kind the program reads (and a few it refuses), one folder per target.
//   build-fuzz/tests/fuzz/fuzz_seed_corpus tests/fuzz/corpus

#include "tests/support/ToyGpt2Tokenizer.h"
#include "tests/support/WeightFileWriters.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cstdio>

using namespace attn;
using namespace attn::testing;

namespace {

QString g_root;

void put(const QString& target, const QString& name, const QByteArray& bytes)
{
    QDir().mkpath(g_root + "/" + target);
    if (!writeFile(g_root + "/" + target + "/" + name, bytes)) {
        std::fprintf(stderr, "cannot write %s/%s\n", qPrintable(target), qPrintable(name));
        std::exit(1);
    }
}

QByteArray npzBytes(const std::vector<NamedF32>& tensors, const std::vector<ZipMember>& extra, bool compress)
{
    QTemporaryDir dir;
    const QString path = dir.filePath("seed.npz");
    if (!writeNpz(path, tensors, extra, compress))
        std::exit(1);
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The first byte of a fuzz_weight_file input: the extension (0 .safetensors, 1 .npz, 2 .json),
// the layer (bits 2-3) and --heads (bits 4-5, 0: from the file).
QByteArray selector(int extension, int layer = 0, int heads = 0)
{
    return QByteArray(1, char(extension | (layer << 2) | (heads << 4)));
}

QByteArray fixture(const QString& name)
{
    QFile file(QStringLiteral(ATTENTION_FIXTURES_DIR "/models/") + name);
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "cannot read the fixture %s\n", qPrintable(name));
        std::exit(1);
    }
    return file.readAll();
}

QByteArray compact(const QJsonObject& object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// A tokenizer target's input: the file, then tokenizer_config.json after the separator line of
// FuzzSupport.h.
QByteArray withConfig(const QByteArray& file, const QByteArray& config)
{
    return file + "\n//tokenizer_config.json\n" + config;
}

void writeModelFolderSeeds()
{
    for (const char* model : {"gpt2-tiny", "gpt2-prefixed", "bert-tiny", "distilbert-tiny"})
        put("fuzz_model_config", QStringLiteral("%1.json").arg(model),
            fixture(QStringLiteral("%1/config.json").arg(model)));
    put("fuzz_model_config", "gpt2-defaults.json",
        R"({"model_type": "gpt2", "vocab_size": 5, "n_positions": 4, "n_embd": 4, "n_layer": 1, "n_head": 2,)"
        R"( "n_inner": null, "activation_function": "relu", "scale_attn_weights": false, "layer_norm_epsilon": 1e-6})");

    // tokenizer.json: the DistilBERT fixture (WordPiece), with its tokenizer_config.json, and a
    // byte-level BPE one written from the toy vocabulary with either spelling of the merges.
    const QByteArray distilbert = fixture("distilbert-tiny/tokenizer.json");
    put("fuzz_tokenizer_json", "distilbert.json", distilbert);
    put("fuzz_tokenizer_json", "distilbert-config.json",
        withConfig(distilbert, fixture("distilbert-tiny/tokenizer_config.json")));
    QJsonArray pairs;
    for (const QString& merge : toyGpt2Merges())
        pairs.append(QJsonArray::fromStringList(merge.split(u' ')));
    QJsonObject bpe{{"type", "BPE"},
                    {"vocab", toyGpt2Vocab()},
                    {"merges", QJsonArray::fromStringList(toyGpt2Merges())},
                    {"unk_token", "<unk>"},
                    {"fuse_unk", false}};
    const QJsonObject byteLevel{
        {"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}, {"trim_offsets", true}};
    const QJsonArray added{QJsonObject{{"id", 20},
                                       {"content", "<|endoftext|>"},
                                       {"special", true},
                                       {"single_word", false},
                                       {"lstrip", false},
                                       {"rstrip", false},
                                       {"normalized", false}}};
    QJsonObject gpt2{{"added_tokens", added},
                     {"normalizer", QJsonValue::Null},
                     {"pre_tokenizer", byteLevel},
                     {"model", bpe},
                     {"post_processor", byteLevel}};
    put("fuzz_tokenizer_json", "bpe-string-merges.json", compact(gpt2));
    bpe["merges"] = pairs;
    gpt2["model"] = bpe;
    gpt2["post_processor"] = QJsonObject{
        {"type", "BertProcessing"}, {"cls", QJsonArray{"<unk>", 19}}, {"sep", QJsonArray{"<|endoftext|>", 20}}};
    put("fuzz_tokenizer_json", "bpe-pair-merges.json",
        withConfig(compact(gpt2), R"({"add_prefix_space": true, "unk_token": "<unk>"})"));

    // The general pipeline: the small Llama 3- and Llama 2-style files of tests/data/tokenizers (the
    // second with the LlamaTokenizerFast config that rebuilds its template), and the Llama 2 one
    // with every other step type in nested sequences.
    const QByteArray llama3 = fixture("../../data/tokenizers/llama3-tiny/tokenizer.json").trimmed();
    const QByteArray llama2 = fixture("../../data/tokenizers/llama2-tiny/tokenizer.json").trimmed();
    put("fuzz_tokenizer_json", "llama3-tiny.json", llama3);
    put("fuzz_tokenizer_json", "llama2-tiny-config.json",
        withConfig(llama2, R"({"tokenizer_class": "LlamaTokenizerFast", "add_bos_token": true, "add_eos_token": true,)"
                           R"( "bos_token": "<s>", "eos_token": {"content": "</s>"}})"));
    QJsonObject steps = QJsonDocument::fromJson(llama2).object();
    steps["normalizer"] =
        QJsonDocument::fromJson(R"({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"},)"
                                R"( {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "}]})")
            .object();
    steps["pre_tokenizer"] =
        QJsonDocument::fromJson(
            R"({"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": true},)"
            R"( {"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": true},)"
            R"( {"type": "Split", "pattern": {"Regex": "(?i:'s)|\\p{L}++"}, "behavior": "MergedWithNext", "invert": false},)"
            R"( {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true}]})")
            .object();
    steps["post_processor"] =
        QJsonDocument::fromJson(
            R"({"type": "Sequence", "processors": [{"type": "RobertaProcessing", "cls": ["<s>", 1], "sep": ["</s>", 2],)"
            R"( "trim_offsets": true, "add_prefix_space": false}]})")
            .object();
    put("fuzz_tokenizer_json", "llama2-tiny-steps.json", compact(steps));

    // vocab.json beside the toy merges; merges.txt beside the toy vocabulary.
    const QByteArray toyMerges = toyGpt2MergesTxt();
    put("fuzz_vocab_json", "toy.json", compact(toyGpt2Vocab()));
    put("fuzz_vocab_json", "toy-prefix-space.json",
        withConfig(compact(toyGpt2Vocab()), R"({"add_prefix_space": true, "unk_token": "<unk>"})"));
    put("fuzz_vocab_json", "toy-specials.json",
        withConfig(compact(toyGpt2Vocab()),
                   R"({"bos_token": {"content": "<|endoftext|>"}, "eos_token": "<|endoftext|>", "unk_token": null})"));
    put("fuzz_merges_txt", "toy.txt", toyMerges);
    put("fuzz_merges_txt", "toy-no-version.txt", toyGpt2Merges().join(u'\n').toUtf8());
    put("fuzz_merges_txt", "toy-prefix-space.txt",
        withConfig(toyMerges, R"({"add_prefix_space": true, "unk_token": "<unk>"})"));

    // vocab.txt: transformers' toy BERT vocabulary, uncased and cased, with and without Chinese
    // characters split.
    const QByteArray bertToy =
        "[UNK]\n[CLS]\n[SEP]\n[PAD]\n[MASK]\nwant\n##want\n##ed\nwa\nun\nrunn\n##ing\n,\nlow\nlowest\n";
    put("fuzz_vocab_txt", "toy.txt", bertToy);
    put("fuzz_vocab_txt", "toy-chinese-unsplit.txt", withConfig(bertToy, R"({"tokenize_chinese_chars": false})"));
    put("fuzz_vocab_txt", "cased.txt",
        withConfig(QString("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nHello\nhello\nH\u00e9llo\nh\u00e9llo\n").toUtf8(),
                   R"({"do_lower_case": false, "strip_accents": true, "cls_token": {"content": "[CLS]"}})"));

    // model.safetensors.index.json over the fixed folder of fuzz_model_index, as transformers
    // writes one (metadata, then the weight map).
    const QJsonObject metadata{{"total_size", 32}};
    const QString first = QStringLiteral("model-00001-of-00002.safetensors");
    const QString second = QStringLiteral("model-00002-of-00002.safetensors");
    put("fuzz_model_index", "two-shards.json",
        compact({{"metadata", metadata},
                 {"weight_map", QJsonObject{{"wte.weight", first},
                                            {"wpe.weight", first},
                                            {"ln_f.weight", first},
                                            {"h.0.ln_1.weight", second}}}}));
    put("fuzz_model_index", "one-shard.json", compact({{"weight_map", QJsonObject{{"h.0.ln_1.weight", second}}}}));
    put("fuzz_model_index", "duplicate-tensor.json",
        compact({{"weight_map", QJsonObject{{"wte.weight", first}, {"wpe.weight", "other.safetensors"}}}}));
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    g_root = QString::fromLocal8Bit(argv[1]);
    const SampleWeights w = SampleWeights::make(4, 4, 4);
    const SampleWeights narrow = SampleWeights::make(3, 2, 2);
    const QJsonObject twoHeads{{"num_heads", "2"}};

    // safetensors: each naming scheme, the weight dtypes, other dtypes, an empty header.
    const QByteArray mha = safetensorsF32(mhaTensors(w), twoHeads);
    const QByteArray proj = safetensorsF32(projTensors(narrow, "model.layers.0.self_attn.", "o_proj"), twoHeads);
    std::vector<StTensor> gpt2;
    for (const NamedF32& t : gpt2Tensors(narrow, "h.0.attn."))
        gpt2.push_back({t.name, "F32", t.shape, t.data});
    gpt2.push_back({"h.0.attn.bias", "BOOL", {1, 1, 2, 2}, QByteArray(4, '\1')});
    gpt2.push_back({"h.1.attn.c_attn.weight", "F16", {1, 3}, u16Bytes({0x3C00, 0x3800, 0x0001})});
    gpt2.push_back({"h.1.attn.c_attn.bias", "BF16", {3}, u16Bytes({0x3F80, 0xC0A0, 0x0001})});
    gpt2.push_back({"position_ids", "I64", {1, 2}, i64Bytes({0, 1})});
    gpt2.push_back({"wte.weight", "F64", {2, 1}, f64Bytes({0.5, -1e-40})});
    gpt2.push_back({"scale", "F8_E4M3FNUZ", {2}, QByteArray(2, '\x10')});
    const QByteArray gpt2File = safetensors(gpt2, QJsonObject{{"num_heads", "1"}, {"format", "pt"}});
    put("fuzz_safetensors", "mha-f32.safetensors", mha);
    put("fuzz_safetensors", "llama-o_proj.safetensors", proj);
    put("fuzz_safetensors", "gpt2-mixed-dtypes.safetensors", gpt2File);
    put("fuzz_safetensors", "empty-header.safetensors", safetensorsRaw("{}      ", {}));
    put("fuzz_safetensors", "zero-rows.safetensors", safetensors({{"q_proj.weight", "F32", {0, 8}, {}}}));

    // npy: dtypes, byte orders, Fortran order, versions, an integer scalar, zero rows.
    put("fuzz_npy", "f4-2x3.npy", npy("<f4", "(2, 3)", f32Bytes({1, 2, 3, 4, 5, 6})));
    put("fuzz_npy", "f8-big-fortran.npy",
        npy(">f8", "(2, 2)",
            QByteArray("\x3f\xf0\0\0\0\0\0\0\x40\0\0\0\0\0\0\0\xbf\xf0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 32), true));
    put("fuzz_npy", "f2-vector.npy", npy("<f2", "(3,)", u16Bytes({0x3C00, 0x7BFF, 0x0001})));
    put("fuzz_npy", "i8-scalar.npy", npy("<i8", "()", i64Bytes({8})));
    put("fuzz_npy", "zero-rows.npy", npy("<f4", "(0, 4)", {}));
    put("fuzz_npy", "version-3.npy",
        npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", f32Bytes({0.5f, -2}), 3));

    // npz: deflated and stored, with num_heads; json: the toy with every key.
    const QByteArray npzDeflated =
        npzBytes(mhaTensors(narrow), {{"num_heads.npy", npy("<i8", "()", i64Bytes({2}))}}, true);
    const QByteArray npzStored = npzBytes(gpt2Tensors(narrow, "transformer.h.0.attn."), {}, false);
    put("fuzz_npz", "mha-deflated.npz", npzDeflated);
    put("fuzz_npz", "gpt2-stored.npz", npzStored);
    put("fuzz_npz", "empty.npz", npzBytes({}, {}, true));

    const QByteArray toy =
        "{\"num_heads\": 1, \"wq\": [[1,0,1],[1,0,0],[0,0,1],[0,1,1]], \"wk\": [[0,0,1],[1,1,0],[0,1,0],[1,1,0]], "
        "\"wv\": [[0,2,0],[0,3,0],[1,0,3],[1,1,0]]}";
    const QByteArray full =
        "{\"num_heads\": 2, \"description\": \"every key \\u00e9\", \"_note\": [null, true, {}],\n"
        " \"wq\": [[0.5, -1e-3], [2, 3.25e2]], \"wk\": [[1, 0], [0, 1]], \"wv\": [[-0, 1E1], [0.125, 7]],\n"
        " \"wo\": [[1, 2, 3], [4, 5, 6]], \"bq\": [1, 2], \"bv\": [0, -1], \"bo\": [0.5, 0.25, 0]}";
    put("fuzz_json_weights", "toy-4d.json", toy);
    put("fuzz_json_weights", "every-key.json", full);
    put("fuzz_json_weights", "num-heads-only.json", "{\"num_heads\": 1}");

    put("fuzz_weight_file", "mha.safetensors.bin", selector(0) + mha);
    put("fuzz_weight_file", "gpt2-layer1-heads1.safetensors.bin", selector(0, 1, 1) + gpt2File);
    put("fuzz_weight_file", "mha.npz.bin", selector(1) + npzDeflated);
    put("fuzz_weight_file", "gpt2-heads2.npz.bin", selector(1, 0, 2) + npzStored);
    put("fuzz_weight_file", "every-key.json.bin", selector(2) + full);

    writeModelFolderSeeds();
    return 0;
}
