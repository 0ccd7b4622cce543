#pragma once

#include "core/pipeline/RunSettings.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/registry/ViewRegistry.h"

#include <QByteArray>
#include <QSettings>
#include <QStringList>
#include <QVariant>

#include <cstdint>
#include <memory>

namespace attn {

// One setting: its key and default in one place, typed.
template <typename T>
struct Setting {
    const char* key;
    T default_value;
};

// Everything the window remembers between runs. Keys and defaults are listed once, below;
// the rest of the program only sees typed getters and setters. Tests pass a temporary file.
class AppSettings {
public:
    AppSettings();                                  // the user's settings (organisation/app names)
    explicit AppSettings(const QString& ini_path);  // a given INI file, e.g. a test's temporary one

    RunSettings runSettings() const;
    void setRunSettings(const RunSettings& config);
    QString sentence() const;
    void setSentence(const QString& sentence);
    QString kvSentence() const;  // cross-attention's second sentence; empty = self-attention
    void setKvSentence(const QString& sentence);
    std::int64_t memoryBudget() const;  // bytes a result may take; 0 = the default budget
    void setMemoryBudget(std::int64_t bytes);
    ColorMaps::Map colorMap() const;
    void setColorMap(ColorMaps::Map map);
    ColorScale colorScale() const;  // of every heatmap view
    void setColorScale(ColorScale scale);
    // The whole model open when the window closed (empty: none), its layer, and whether its field
    // held token ids (their text kept apart from the sentence's).
    QString modelFolder() const;
    void setModelFolder(const QString& dir);
    int modelLayer() const;
    void setModelLayer(int layer);
    bool tokenIdsInput() const;
    void setTokenIdsInput(bool token_ids);
    QString tokenIds() const;
    void setTokenIds(const QString& ids);
    CellReduction reduction() const;  // what a reduced pixel of every heatmap shows
    void setReduction(CellReduction how);
    bool valueNorms() const;  // the heatmaps draw ||A f(x)|| rather than the weights
    void setValueNorms(bool norms);
    // The File menu's recent weight files and model folders (RecentItems), each under its key.
    enum class RecentList { WeightFiles, ModelFolders, Sessions };
    QStringList recent(RecentList list) const;
    void addRecent(RecentList list, const QString& path);  // most recent first, at most kMaxRecentFiles
    void removeRecent(RecentList list, const QString& path);
    QStringList recentFiles() const { return recent(RecentList::WeightFiles); }
    QStringList recentModels() const { return recent(RecentList::ModelFolders); }
    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray& geometry);
    QByteArray windowState() const;
    void setWindowState(const QByteArray& state);
    View currentView() const;
    void setCurrentView(View view);
    int currentHead() const;
    void setCurrentHead(int head);

    void sync();
    QString fileName() const { return m_settings->fileName(); }

    static constexpr int kMaxRecentFiles = 8;

private:
    template <typename T>
    T get(const Setting<T>& setting) const
    {
        return m_settings->value(QLatin1String(setting.key), QVariant::fromValue(setting.default_value))
            .template value<T>();
    }
    template <typename T>
    void set(const Setting<T>& setting, const T& value)
    {
        m_settings->setValue(QLatin1String(setting.key), QVariant::fromValue(value));
    }

    std::unique_ptr<QSettings> m_settings;
};

}  // namespace attn
