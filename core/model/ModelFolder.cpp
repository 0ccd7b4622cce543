#include "core/model/ModelFolder.h"

#include "core/base/BoundedRead.h"
#include "core/base/MessageText.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace attn {

Result<QByteArray> readFolderFile(const QString& path, qint64 limit)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot be read (%1)").arg(file.errorString())};
    if (file.size() > limit)
        return Error{QStringLiteral("is %1 bytes, over the limit of %2").arg(file.size()).arg(limit)};
    BoundedRead read = readAtMost(file, limit);
    if (read.over_limit)
        return Error{QStringLiteral("is over the limit of %1 bytes").arg(limit)};
    if (read.failed)
        return Error{QStringLiteral("cannot be read (%1)").arg(file.errorString())};
    return std::move(read.bytes);
}

Result<std::unique_ptr<ModelFolder>> ModelFolder::open(const QString& dir)
{
    const QFileInfo info(dir);
    if (!info.exists())
        return Error{QStringLiteral("no such folder")};
    if (!info.isDir())
        return Error{QStringLiteral("not a folder")};

    std::unique_ptr<ModelFolder> folder(new ModelFolder);
    folder->m_path = dir;
    const QString config_path = QDir(dir).filePath(QStringLiteral("config.json"));
    if (!QFileInfo(config_path).isFile())
        return Error{QStringLiteral("no config.json in the folder")};
    auto text = readFolderFile(config_path, kMaxJsonBytes);
    if (!text)
        return Error{QStringLiteral("config.json %1").arg(text.error())};
    auto config = ModelConfig::fromJson(*text);
    if (!config)
        return Error{QStringLiteral("config.json: %1").arg(config.error())};
    folder->m_config = std::move(config).value();
    if (Status s = folder->openWeights(); !s)
        return Error{s.error()};
    return folder;
}

Status ModelFolder::addFile(const QString& file_name)
{
    auto file = MappedSafetensors::open(QDir(m_path).filePath(file_name));
    if (!file)
        return Error{QStringLiteral("%1: %2").arg(escapedForMessage(file_name), file.error())};
    const MappedSafetensors* mapped = file->get();
    for (const auto& tensor : mapped->tensors()) {
        const auto existing = m_tensors.constFind(tensor.name);
        if (existing != m_tensors.cend())
            return Error{QStringLiteral("tensor '%1' is in both %2 and %3")
                             .arg(escapedForMessage(tensor.name),
                                  escapedForMessage(QFileInfo(existing->file->path()).fileName()),
                                  escapedForMessage(file_name))};
        m_tensors.insert(tensor.name, Tensor{mapped, &tensor});
    }
    m_files.push_back(std::move(file).value());
    return {};
}

Status ModelFolder::openWeights()
{
    const QDir dir(m_path);
    const QString single = QStringLiteral("model.safetensors");
    const QString index_name = QStringLiteral("model.safetensors.index.json");
    if (QFileInfo(dir.filePath(single)).isFile())
        return addFile(single);
    if (!QFileInfo(dir.filePath(index_name)).isFile()) {
        for (const char* pickle : {"pytorch_model.bin", "pytorch_model.bin.index.json"})
            if (QFileInfo(dir.filePath(QLatin1String(pickle))).exists())
                return Error{QStringLiteral("only %1 is present: its weights are a Python pickle, which this program "
                                            "does not read; it needs model.safetensors (convert the checkpoint to "
                                            "safetensors)")
                                 .arg(QLatin1String(pickle))};
        return Error{QStringLiteral("no model.safetensors or model.safetensors.index.json in the folder")};
    }

    auto text = readFolderFile(dir.filePath(index_name), kMaxJsonBytes);
    if (!text)
        return Error{QStringLiteral("%1 %2").arg(index_name, text.error())};
    QJsonParseError parse_error;
    const QJsonDocument doc = QJsonDocument::fromJson(*text, &parse_error);
    if (parse_error.error != QJsonParseError::NoError)
        return Error{QStringLiteral("%1: not valid JSON (%2 at byte %3)")
                         .arg(index_name, parse_error.errorString())
                         .arg(parse_error.offset)};
    const QJsonValue map_value = doc.object().value(QLatin1String("weight_map"));
    if (!doc.isObject() || !map_value.isObject())
        return Error{QStringLiteral("%1: no \"weight_map\" object").arg(index_name)};
    const QJsonObject weight_map = map_value.toObject();

    QStringList shards;
    for (auto it = weight_map.begin(); it != weight_map.end(); ++it) {
        const QString shard = it.value().toString();
        // A shard is a file of this folder: nothing that could lead out of it.
        if (!it.value().isString() || shard.isEmpty() || shard.contains(u'/') || shard.contains(u'\\') ||
            shard == u"." || shard == u"..")
            return Error{QStringLiteral("%1: tensor '%2' is mapped to %3, not the name of a file in the folder")
                             .arg(index_name, escapedForMessage(it.key()),
                                  it.value().isString() ? quotedForMessage(shard, shard.size())
                                                        : QStringLiteral("a non-string"))};
        if (!shards.contains(shard))
            shards.append(shard);
    }
    std::sort(shards.begin(), shards.end());
    for (const QString& shard : shards) {
        if (!QFileInfo(dir.filePath(shard)).isFile())
            return Error{QStringLiteral("%1 names the shard %2, which is not in the folder")
                             .arg(index_name, escapedForMessage(shard))};
        if (Status s = addFile(shard); !s)
            return s;
    }
    for (auto it = weight_map.begin(); it != weight_map.end(); ++it) {
        const auto found = m_tensors.constFind(it.key());
        if (found == m_tensors.cend() || QFileInfo(found->file->path()).fileName() != it.value().toString())
            return Error{QStringLiteral("tensor '%1' is missing: %2 puts it in %3, which does not hold it")
                             .arg(escapedForMessage(it.key()), index_name, escapedForMessage(it.value().toString()))};
    }
    return {};
}

}  // namespace attn
