#include "core/weights/WeightFile.h"

#include "core/base/BoundedRead.h"
#include "core/io/NpzReader.h"
#include "core/io/SafetensorsReader.h"
#include "core/weights/JsonWeightsReader.h"
#include "core/weights/WeightNaming.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <memory>
#include <new>

namespace attn {
namespace {

Result<LoadedWeights> loadJson(const QString& path, const WeightFileOptions& options)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot be opened (%1)").arg(file.errorString())};
    const qint64 size = file.size();
    if (size > JsonWeightsReader::kMaxFileBytes)
        return Error{QStringLiteral("%1 bytes is too large for JSON weights (limit %2; use .safetensors or .npz)")
                         .arg(size)
                         .arg(JsonWeightsReader::kMaxFileBytes)};
    if (options.layer != 0)
        return Error{
            QStringLiteral("layer %1 is out of range: the file holds 1 attention layer (layer 0)").arg(options.layer)};
    // Mapped rather than copied: a file refused early (a limit passed in its first rows) costs
    // only the pages the parser has looked at.
    QByteArray copy;
    QByteArrayView json;
    if (uchar* mapped = size > 0 ? file.map(0, size) : nullptr) {
        json = QByteArrayView(reinterpret_cast<const char*>(mapped), size);
    } else {
        BoundedRead read = readAtMost(file, JsonWeightsReader::kMaxFileBytes);
        if (read.over_limit)
            return Error{QStringLiteral("more than %1 bytes is too large for JSON weights (use .safetensors or .npz)")
                             .arg(JsonWeightsReader::kMaxFileBytes)};
        if (read.failed)
            return Error{QStringLiteral("cannot be read (%1)").arg(file.errorString())};
        copy = std::move(read.bytes);
        json = copy;
    }
    auto weights = JsonWeightsReader::parse(json, options.num_heads);
    if (!weights)
        return Error{weights.error()};
    return LoadedWeights{std::move(weights).value(), 1, QStringLiteral("json"), QString()};
}

Result<LoadedWeights> loadChecked(const QString& path, const WeightFileOptions& options)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Error{QStringLiteral("no such file")};
    if (info.isDir())
        return Error{QStringLiteral("is a directory, not a weight file")};
    if (!info.isFile())
        return Error{QStringLiteral("is not a regular file")};

    const QString suffix = info.suffix().toLower();
    if (suffix == u"safetensors") {
        auto reader = SafetensorsReader::open(path);
        if (!reader)
            return Error{reader.error()};
        return WeightNaming::build(**reader, options);
    }
    if (suffix == u"npz") {
        auto reader = NpzReader::open(path);
        if (!reader)
            return Error{reader.error()};
        return WeightNaming::build(**reader, options);
    }
    if (suffix == u"json")
        return loadJson(path, options);
    if (suffix == u"pt" || suffix == u"pth" || suffix == u"bin" || suffix == u"ckpt")
        return Error{QStringLiteral("PyTorch pickle files (.%1) are not read (they can run code); save the state dict "
                                    "with safetensors.torch.save_file or numpy.savez")
                         .arg(suffix)};
    return Error{QStringLiteral("unsupported extension '%1'; weight files are .safetensors, .npz or .json")
                     .arg(suffix.isEmpty() ? QString() : QLatin1Char('.') + info.suffix())};
}

}  // namespace

Result<std::optional<int>> WeightFile::declaredNumHeads(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == u"json") {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly) || file.size() > JsonWeightsReader::kMaxFileBytes)
            return Error{QStringLiteral("cannot be read")};
        const QJsonDocument document = QJsonDocument::fromJson(file.readAll());
        if (!document.isObject())
            return Error{QStringLiteral("is not a JSON object")};
        const QJsonValue heads = document.object().value(QLatin1String("num_heads"));
        if (heads.isUndefined())
            return std::optional<int>{};
        return std::optional<int>{heads.toInt()};
    }
    std::unique_ptr<TensorSource> source;
    if (suffix == u"safetensors") {
        auto reader = SafetensorsReader::open(path);
        if (!reader)
            return Error{reader.error()};
        source = std::move(reader).value();
    } else if (suffix == u"npz") {
        auto reader = NpzReader::open(path);
        if (!reader)
            return Error{reader.error()};
        source = std::move(reader).value();
    } else {
        return Error{QStringLiteral("not a weight file")};
    }
    return source->declaredNumHeads();
}

Result<LoadedWeights> WeightFile::load(const QString& path, const WeightFileOptions& options)
{
    QString name = QFileInfo(path).fileName();
    if (name.isEmpty())
        name = path;
    try {
        auto loaded = loadChecked(path, options);
        if (!loaded)
            return Error{singleLine(QStringLiteral("%1: %2").arg(name, loaded.error()))};
        return loaded;
    } catch (const std::bad_alloc&) {
        return Error{singleLine(QStringLiteral("%1: the weights do not fit in memory").arg(name))};
    }
}

}  // namespace attn
