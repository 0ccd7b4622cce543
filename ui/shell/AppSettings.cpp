#include "ui/shell/AppSettings.h"

#include <QDir>

#include <algorithm>

namespace attn {
namespace {

// The table of every key and default.
const Setting<QString> kSentence{"input/sentence", RunSettings::defaultSentence()};
const Setting<QString> kKvSentence{"input/kv_sentence", QString()};  // empty: self-attention
const Setting<QString> kPadKeys{"model/pad_keys", QString()};        // "1,3": 0-based key positions
const Setting<int> kDModel{"model/d_model", RunSettings::kDefaultDModel};
const Setting<int> kHeads{"model/heads", RunSettings::kDefaultHeads};
const Setting<int> kInputDim{"model/input_dim", 0};
const Setting<qulonglong> kSeed{"model/seed", 0};
const Setting<QString> kWeightSource{"model/weights", QStringLiteral("random")};
const Setting<QString> kWeightsFile{"model/weights_file", QString()};
const Setting<int> kLayer{"model/layer", 0};
const Setting<int> kFileHeads{"model/file_heads", 0};
const Setting<bool> kCausal{"model/causal", false};
const Setting<QString> kScale{"model/scale", QStringLiteral("sqrt")};
const Setting<bool> kPositional{"model/positional_encoding", true};
const Setting<QString> kColorMap{"view/colormap", QStringLiteral("viridis")};
const Setting<QString> kColorScale{"view/color-scale", QStringLiteral("without-one-key-rows")};
const Setting<QString> kReduction{"view/reduction", QStringLiteral("max")};  // cellReductionKey
const Setting<bool> kValueNorms{"view/value-norms", false};
const Setting<qint64> kMemoryBudget{"memory/budget", 0};               // bytes; 0 = MemoryPlan::defaultBudget()
const Setting<QString> kView{"view/current", QStringLiteral("grid")};  // a viewKey
const Setting<int> kHead{"view/head", 0};
const Setting<QString> kModelFolder{"model/folder", QString()};  // a whole model's folder; empty: none
const Setting<int> kModelLayer{"model/folder_layer", 0};
const Setting<bool> kTokenIdsInput{"input/token_ids_mode", false};
const Setting<QString> kTokenIds{"input/token_ids", QString()};
const Setting<QStringList> kRecent{"files/recent", QStringList()};
const Setting<QStringList> kRecentModels{"files/recentModels", QStringList()};
const Setting<QStringList> kRecentSessions{"files/recentSessions", QStringList()};

const Setting<QStringList>& recentSetting(AppSettings::RecentList list)
{
    switch (list) {
        case AppSettings::RecentList::ModelFolders:
            return kRecentModels;
        case AppSettings::RecentList::Sessions:
            return kRecentSessions;
        case AppSettings::RecentList::WeightFiles:
            break;
    }
    return kRecent;
}
const Setting<QByteArray> kGeometry{"window/geometry", QByteArray()};
const Setting<QByteArray> kState{"window/state", QByteArray()};

QString sourceName(RunSettings::WeightSource source)
{
    switch (source) {
        case RunSettings::WeightSource::Identity:
            return QStringLiteral("identity");
        case RunSettings::WeightSource::File:
            return QStringLiteral("file");
        case RunSettings::WeightSource::Random:
            break;
    }
    return QStringLiteral("random");
}

}  // namespace

AppSettings::AppSettings() : m_settings(std::make_unique<QSettings>())
{
}

AppSettings::AppSettings(const QString& ini_path)
    : m_settings(std::make_unique<QSettings>(ini_path, QSettings::IniFormat))
{
}

RunSettings AppSettings::runSettings() const
{
    RunSettings config;
    config.d_model = get(kDModel);
    config.num_heads = get(kHeads);
    config.input_dim = get(kInputDim);
    config.seed = get(kSeed);
    const QString source = get(kWeightSource);
    config.weights_file = get(kWeightsFile);
    config.weight_source = source == QLatin1String("identity") ? RunSettings::WeightSource::Identity
                           : (source == QLatin1String("file") && !config.weights_file.isEmpty())
                               ? RunSettings::WeightSource::File
                               : RunSettings::WeightSource::Random;
    config.layer = get(kLayer);
    config.file_num_heads = get(kFileHeads);
    config.causal = get(kCausal);
    if (auto scale = ScaleSetting::parse(get(kScale)))
        config.scale = scale.value();
    config.positional_encoding = get(kPositional);
    // A settings file is edited by hand at times: anything but a non-negative integer is skipped.
    for (const QString& part : get(kPadKeys).split(u',', Qt::SkipEmptyParts)) {
        bool ok = false;
        const int key = part.trimmed().toInt(&ok);
        if (ok && key >= 0 && !config.padded_keys.contains(key))
            config.padded_keys.append(key);
    }
    std::sort(config.padded_keys.begin(), config.padded_keys.end());
    return config;
}

void AppSettings::setRunSettings(const RunSettings& config)
{
    set(kDModel, config.d_model);
    set(kHeads, config.num_heads);
    set(kInputDim, config.input_dim);
    set(kSeed, qulonglong(config.seed));
    set(kWeightSource, sourceName(config.weight_source));
    set(kWeightsFile, config.weights_file);
    set(kLayer, config.layer);
    set(kFileHeads, config.file_num_heads);
    set(kCausal, config.causal);
    set(kScale, config.scale.toString());
    set(kPositional, config.positional_encoding);
    QStringList padded;
    for (int key : config.padded_keys)
        padded.append(QString::number(key));
    set(kPadKeys, padded.join(u','));
}

QString AppSettings::sentence() const
{
    return get(kSentence);
}
void AppSettings::setSentence(const QString& sentence)
{
    set(kSentence, sentence);
}
QString AppSettings::kvSentence() const
{
    return get(kKvSentence);
}
void AppSettings::setKvSentence(const QString& sentence)
{
    set(kKvSentence, sentence);
}
ColorScale AppSettings::colorScale() const
{
    return ColorScales::fromKey(get(kColorScale));
}

void AppSettings::setColorScale(ColorScale scale)
{
    set(kColorScale, ColorScales::key(scale));
}

CellReduction AppSettings::reduction() const
{
    return cellReductionFromKey(get(kReduction)).value_or(CellReduction::Max);
}

void AppSettings::setReduction(CellReduction how)
{
    set(kReduction, cellReductionKey(how));
}

bool AppSettings::valueNorms() const
{
    return get(kValueNorms);
}

void AppSettings::setValueNorms(bool norms)
{
    set(kValueNorms, norms);
}

std::int64_t AppSettings::memoryBudget() const
{
    return std::max<qint64>(0, get(kMemoryBudget));
}
void AppSettings::setMemoryBudget(std::int64_t bytes)
{
    set(kMemoryBudget, qint64(bytes));
}

ColorMaps::Map AppSettings::colorMap() const
{
    return ColorMaps::fromName(get(kColorMap));
}
void AppSettings::setColorMap(ColorMaps::Map map)
{
    set(kColorMap, ColorMaps::name(map));
}
QString AppSettings::modelFolder() const
{
    return get(kModelFolder);
}
void AppSettings::setModelFolder(const QString& dir)
{
    set(kModelFolder, dir);
}
int AppSettings::modelLayer() const
{
    return std::max(0, get(kModelLayer));
}
void AppSettings::setModelLayer(int layer)
{
    set(kModelLayer, layer);
}
bool AppSettings::tokenIdsInput() const
{
    return get(kTokenIdsInput);
}
void AppSettings::setTokenIdsInput(bool token_ids)
{
    set(kTokenIdsInput, token_ids);
}
QString AppSettings::tokenIds() const
{
    return get(kTokenIds);
}
void AppSettings::setTokenIds(const QString& ids)
{
    set(kTokenIds, ids);
}
QStringList AppSettings::recent(RecentList list) const
{
    return get(recentSetting(list));
}

void AppSettings::addRecent(RecentList list, const QString& path)
{
    QStringList paths = recent(list);
    const QString clean = QDir::cleanPath(path);
    paths.removeAll(clean);
    paths.prepend(clean);
    while (paths.size() > kMaxRecentFiles)
        paths.removeLast();
    set(recentSetting(list), paths);
}

void AppSettings::removeRecent(RecentList list, const QString& path)
{
    QStringList paths = recent(list);
    paths.removeAll(QDir::cleanPath(path));
    set(recentSetting(list), paths);
}

QByteArray AppSettings::windowGeometry() const
{
    return get(kGeometry);
}
void AppSettings::setWindowGeometry(const QByteArray& geometry)
{
    set(kGeometry, geometry);
}
QByteArray AppSettings::windowState() const
{
    return get(kState);
}
void AppSettings::setWindowState(const QByteArray& state)
{
    set(kState, state);
}
View AppSettings::currentView() const
{
    const QString saved = get(kView);
    if (std::optional<View> view = viewFromKey(saved))
        return *view;
    // Earlier versions saved the tab's index.
    bool is_index = false;
    const int index = saved.toInt(&is_index);
    return is_index && index >= 0 && index < int(ViewRegistry::rows().size()) ? View(index) : View::Grid;
}
void AppSettings::setCurrentView(View view)
{
    set(kView, viewKey(view));
}
int AppSettings::currentHead() const
{
    return get(kHead);
}
void AppSettings::setCurrentHead(int head)
{
    set(kHead, head);
}
void AppSettings::sync()
{
    m_settings->sync();
}

}  // namespace attn
