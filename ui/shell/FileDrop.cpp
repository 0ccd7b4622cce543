#include "ui/shell/FileDrop.h"

#include "ui/shell/MainWindow.h"
#include "ui/shell/SessionActions.h"

#include <QFileInfo>
#include <QMimeData>
#include <QUrl>

namespace attn {

QString FileDrop::acceptedPath(const QMimeData* data)
{
    const QList<QUrl> urls = data->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return QString();
    return urls.first().toLocalFile();
}

void FileDrop::open(MainWindow& window, const QString& path)
{
    if (QFileInfo(path).isDir())
        window.openModelFolder(path);  // a Hugging Face model folder
    else if (SessionActions::isSessionFile(path))
        window.sessionActions()->openSession(path);
    else
        window.openWeightsFile(path);
}

}  // namespace attn
