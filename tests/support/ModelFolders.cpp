#include "tests/support/ModelFolders.h"

#include "core/io/MappedSafetensors.h"
#include "tests/support/TestPaths.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QtEndian>

#include <bit>
#include <cmath>
#include <cstring>

namespace attn::testing {

QString modelFixture(const QString& name)
{
    return fixturesPath("models/") + name;
}

std::vector<StTensor> storedTensors(const QString& path)
{
    std::vector<StTensor> tensors;
    auto file = MappedSafetensors::open(path);
    if (!file)
        return tensors;
    for (const auto& info : (*file)->tensors())
        tensors.push_back({info.name, info.dtype, info.shape,
                           QByteArray(reinterpret_cast<const char*>((*file)->data(info)), info.end - info.begin)});
    return tensors;
}

bool copyFolder(const QString& from, const QString& to)
{
    const QDir source(from);
    QDir().mkpath(to);
    for (const QString& name : source.entryList(QDir::Files))
        if (!QFile::copy(source.filePath(name), QDir(to).filePath(name)))
            return false;
    return true;
}

QJsonObject readJsonObject(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

bool writeJsonObject(const QString& path, const QJsonObject& object)
{
    return writeFile(path, QJsonDocument(object).toJson());
}

bool editConfig(const QString& dir, const std::function<void(QJsonObject&)>& edit)
{
    const QString path = QDir(dir).filePath(QStringLiteral("config.json"));
    QJsonObject config = readJsonObject(path);
    edit(config);
    return writeJsonObject(path, config);
}

bool editTensors(const QString& dir, const std::function<void(std::vector<StTensor>&)>& edit)
{
    const QString path = QDir(dir).filePath(QStringLiteral("model.safetensors"));
    std::vector<StTensor> tensors = storedTensors(path);
    if (tensors.empty())
        return false;
    edit(tensors);
    return writeFile(path, safetensors(tensors));
}

bool splitIntoShards(const QString& dir, int shards)
{
    const QDir folder(dir);
    const std::vector<StTensor> tensors = storedTensors(folder.filePath(QStringLiteral("model.safetensors")));
    if (tensors.empty() || !QFile::remove(folder.filePath(QStringLiteral("model.safetensors"))))
        return false;
    std::vector<std::vector<StTensor>> dealt(static_cast<size_t>(shards));
    QJsonObject weight_map;
    for (size_t i = 0; i < tensors.size(); ++i) {
        const int shard = int(i % size_t(shards));
        dealt[size_t(shard)].push_back(tensors[i]);
        weight_map.insert(tensors[i].name, QStringLiteral("model-%1-of-%2.safetensors")
                                               .arg(shard + 1, 5, 10, QLatin1Char('0'))
                                               .arg(shards, 5, 10, QLatin1Char('0')));
    }
    for (int shard = 0; shard < shards; ++shard) {
        const QString name = QStringLiteral("model-%1-of-%2.safetensors")
                                 .arg(shard + 1, 5, 10, QLatin1Char('0'))
                                 .arg(shards, 5, 10, QLatin1Char('0'));
        if (!writeFile(folder.filePath(name), safetensors(dealt[size_t(shard)])))
            return false;
    }
    return writeJsonObject(folder.filePath(QStringLiteral("model.safetensors.index.json")),
                           QJsonObject{{"metadata", QJsonObject{{"total_size", 0}}}, {"weight_map", weight_map}});
}

namespace {

float roundedToHalfPrecision(float x)
{
    if (std::abs(x) < std::ldexp(1.0f, -17))
        return 0.0f;
    // Round to nearest with 8 significant bits (bfloat16's), ties away from zero.
    std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    bits = (bits + 0x8000u) & 0xFFFF0000u;
    return std::bit_cast<float>(bits);
}

// binary16 bits of a value it holds exactly (normal or subnormal).
std::uint16_t halfBits(float x)
{
    const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const float a = std::abs(x);
    if (a == 0.0f)
        return sign;
    int exponent = 0;
    const float mantissa = std::frexp(a, &exponent);  // a = mantissa 2^exponent, mantissa in [0.5, 1)
    if (exponent - 1 >= -14) {                        // normal: a = 1.f 2^(exponent - 1)
        const auto fraction = std::uint16_t(std::lround((mantissa * 2.0f - 1.0f) * 1024.0f));
        return std::uint16_t(sign | (std::uint16_t(exponent - 1 + 15) << 10) | fraction);
    }
    return std::uint16_t(sign | std::uint16_t(std::lround(std::ldexp(a, 24))));  // subnormal: a = f 2^-24
}

}  // namespace

void roundToHalfPrecision(std::vector<StTensor>& tensors)
{
    for (StTensor& t : tensors) {
        if (t.dtype != u"F32")
            continue;
        float* values = reinterpret_cast<float*>(t.data.data());
        for (qsizetype i = 0; i < t.data.size() / 4; ++i)
            values[i] = roundedToHalfPrecision(qFromLittleEndian(values[i]));
    }
}

void storeAs(std::vector<StTensor>& tensors, const QString& dtype)
{
    for (StTensor& t : tensors) {
        if (t.dtype != u"F32")
            continue;
        const float* values = reinterpret_cast<const float*>(t.data.constData());
        const qsizetype count = t.data.size() / 4;
        std::vector<std::uint16_t> bits(static_cast<size_t>(count));
        for (qsizetype i = 0; i < count; ++i)
            bits[size_t(i)] =
                dtype == u"BF16" ? std::uint16_t(std::bit_cast<std::uint32_t>(values[i]) >> 16) : halfBits(values[i]);
        t.data = u16Bytes(bits);
        t.dtype = dtype;
    }
}

QString folderWithoutPredictionHead(const QString& dir)
{
    const QString folder = QDir(dir).filePath(QStringLiteral("no-head"));
    const auto without_head = [](std::vector<StTensor>& tensors) {
        std::erase_if(tensors, [](const StTensor& t) { return t.name == QStringLiteral("lm_head.weight"); });
    };
    const bool made =
        copyFolder(modelFixture(QStringLiteral("mistral-tiny")), folder) && editTensors(folder, without_head);
    return made ? folder : QString();
}

QStringList modelArguments(const QString& fixture, const QString& dir)
{
    if (fixture.isEmpty())
        return {};
    const QString folder = fixture == u"no-head" ? folderWithoutPredictionHead(dir) : modelFixture(fixture);
    return folder.isEmpty() ? QStringList() : QStringList{QStringLiteral("--model"), folder};
}

}  // namespace attn::testing
