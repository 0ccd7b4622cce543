#pragma once

// A Hugging Face model folder (docs/command-line.md, "Real models"), as read here:
//   config.json                     required; see ModelConfig.h
//   model.safetensors               the weights, or else
//   model.safetensors.index.json    {"metadata": {...}, "weight_map": {"<tensor>": "<shard file>", ...}}
//                                   with the shard files it names, in the same folder
//   tokenizer files                 read by the tokenizer, not here
// A folder with only pytorch_model.bin (a Python pickle) is refused: safetensors is needed.
// Each safetensors file's header is validated by SafetensorsReader and the file memory-mapped;
// nothing is read from a tensor until it is used. Shard names are plain file names in the folder
// (no directories), a tensor held by two shards is refused, and every weight_map entry must be
// in the shard it names.

#include "core/io/MappedSafetensors.h"
#include "core/model/ModelConfig.h"

#include <QHash>
#include <QString>

#include <memory>
#include <vector>

namespace attn {

class ModelFolder {
public:
    struct Tensor {
        const MappedSafetensors* file = nullptr;
        const MappedSafetensors::TensorInfo* info = nullptr;
    };

    // Messages name the file inside the folder and the reason; the caller puts the folder first.
    static Result<std::unique_ptr<ModelFolder>> open(const QString& dir);

    const QString& path() const { return m_path; }
    const ModelConfig& config() const { return m_config; }
    // Every tensor of the weight files, by the name stored in the file.
    const QHash<QString, Tensor>& tensors() const { return m_tensors; }

    static constexpr qint64 kMaxJsonBytes = 64 << 20;  // config.json and the index

private:
    ModelFolder() = default;
    Status openWeights();
    Status addFile(const QString& file_name);

    QString m_path;
    ModelConfig m_config;
    std::vector<std::unique_ptr<MappedSafetensors>> m_files;
    QHash<QString, Tensor> m_tensors;
};

// Reads a small JSON file of the folder whole, refusing one over `limit` bytes.
Result<QByteArray> readFolderFile(const QString& path, qint64 limit);

}  // namespace attn
