#include "ui/shell/RecentItems.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QStandardPaths>

#include <algorithm>

namespace attn {

RecentItems::RecentItems(AppSettings* settings, AppSettings::RecentList list, QMenu* menu)
    : QObject(menu), m_settings(settings), m_list(list), m_menu(menu)
{
    m_menu->setToolTipsVisible(true);
    updateMenu();
}

QStringList RecentItems::paths() const
{
    return m_settings->recent(m_list);
}

void RecentItems::add(const QString& path)
{
    m_settings->addRecent(m_list, path);
    updateMenu();
}

QString RecentItems::dialogFolder() const
{
    const QStringList recent = paths();
    return recent.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::HomeLocation)
                            : QFileInfo(recent.first()).absolutePath();
}

QStringList RecentItems::distinctNames(const QStringList& paths)
{
    QList<QStringList> parts;
    for (const QString& path : paths)
        parts << QDir::fromNativeSeparators(path).split(u'/', Qt::SkipEmptyParts);
    const auto tail = [&parts](int i, int depth) {
        return parts[i].mid(std::max<qsizetype>(0, parts[i].size() - depth));
    };
    QStringList names;
    for (int i = 0; i < parts.size(); ++i) {
        int depth = 1;
        for (int j = 0; j < parts.size(); ++j)
            while (j != i && depth < parts[i].size() && tail(i, depth) == tail(j, depth))
                ++depth;
        names << tail(i, depth).join(u'/');
    }
    return names;
}

void RecentItems::updateMenu()
{
    m_menu->clear();
    const QStringList recent = paths();
    const QStringList names = distinctNames(recent);
    for (int i = 0; i < recent.size(); ++i) {
        QAction* action = m_menu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(names[i]));
        action->setToolTip(recent[i]);
        connect(action, &QAction::triggered, this, [this, path = recent[i]] { emit chosen(path); });
    }
    m_menu->setEnabled(!recent.isEmpty());
}

}  // namespace attn
