// libFuzzer target: model.safetensors.index.json in a model folder, through ModelFolder::open as
// --model reads a sharded model. The folder's other files are fixed: a GPT-2 config.json, two
// shards, a third safetensors file holding one tensor of the first shard again, and a text file.

#include "core/model/ModelFolder.h"
#include "tests/fuzz/FuzzSupport.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace {

// A safetensors file of F32 tensors of shape [2] (the values do not matter here).
QByteArray twoFloatTensors(const QStringList& names)
{
    QByteArray header = "{";
    for (qsizetype i = 0; i < names.size(); ++i)
        header += QStringLiteral("%1\"%2\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[%3,%4]}")
                      .arg(i ? QStringLiteral(",") : QString(), names[i])
                      .arg(8 * i)
                      .arg(8 * i + 8)
                      .toUtf8();
    header += "}";
    header += QByteArray((8 - header.size() % 8) % 8, ' ');
    QByteArray file(8, '\0');
    for (int byte = 0; byte < 8; ++byte)
        file[byte] = char((quint64(header.size()) >> (8 * byte)) & 0xff);
    return file + header + QByteArray(8 * names.size(), '\0');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    static const fuzz::InputFolder folder(QStringLiteral("model-index"));
    static const bool folder_written = [] {
        folder.put(
            QStringLiteral("config.json"),
            R"({"model_type": "gpt2", "vocab_size": 2, "n_positions": 2, "n_embd": 2, "n_layer": 1, "n_head": 1})");
        folder.put(QStringLiteral("model-00001-of-00002.safetensors"),
                   twoFloatTensors({"wte.weight", "wpe.weight", "ln_f.weight"}));
        folder.put(QStringLiteral("model-00002-of-00002.safetensors"), twoFloatTensors({"h.0.ln_1.weight"}));
        folder.put(QStringLiteral("other.safetensors"), twoFloatTensors({"wte.weight"}));
        folder.put(QStringLiteral("notes.txt"), "not a safetensors file");
        return true;
    }();
    (void)folder_written;
    const QByteArray index = fuzz::bytesOf(data, size);
    folder.put(QStringLiteral("model.safetensors.index.json"), index);
    auto model = ModelFolder::open(folder.path());
    if (!model) {
        fuzz::checkPrintedMessage(model.error());
        return 0;
    }
    // Every tensor of the weight map is in the folder's table, each entry pointing into its file.
    const QJsonObject weight_map =
        QJsonDocument::fromJson(index).object().value(QLatin1String("weight_map")).toObject();
    for (auto it = weight_map.begin(); it != weight_map.end(); ++it)
        FUZZ_CHECK((*model)->tensors().contains(it.key()));
    for (auto it = (*model)->tensors().cbegin(); it != (*model)->tensors().cend(); ++it) {
        FUZZ_CHECK(it->file != nullptr && it->info != nullptr);
        FUZZ_CHECK(it->info->name == it.key() && it->file->find(it.key()) == it->info);
    }
    return 0;
}
