#pragma once

#include "ui/shell/AppSettings.h"

#include <QObject>
#include <QStringList>

class QMenu;

namespace attn {

// A File menu's list of what was opened last (weight files, model folders): most recent first,
// remembered in the settings under the list's key, each entry named by as much of its path as
// tells it apart from the others ("gpt2" alone, "a/gpt2" and "b/gpt2" for two folders of that
// name), its whole path in the tooltip. Choosing an entry emits chosen.
class RecentItems : public QObject {
    Q_OBJECT
public:
    RecentItems(AppSettings* settings, AppSettings::RecentList list, QMenu* menu);

    QStringList paths() const;
    void add(const QString& path);  // at the top, and the menu with it
    QMenu* menu() const { return m_menu; }
    // Where an Open dialog starts: the folder holding the most recent entry, else the home folder.
    QString dialogFolder() const;

    // Each path's last parts, as many as tell it apart from the other paths.
    static QStringList distinctNames(const QStringList& paths);

signals:
    void chosen(const QString& path);

private:
    void updateMenu();

    AppSettings* m_settings;
    AppSettings::RecentList m_list;
    QMenu* m_menu;
};

}  // namespace attn
