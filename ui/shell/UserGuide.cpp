#include "ui/shell/UserGuide.h"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QUrl>

namespace attn {
namespace {

const QString kGuide = QStringLiteral("docs/window.md");

}  // namespace

QString UserGuide::locate(const QString& program_dir)
{
    const QDir program(program_dir);
    // The install rules put docs/ into the documentation folder; this is its path from the
    // program's folder (share/doc/attention-lab from bin, whatever the prefix).
    const QString installed = program.filePath(QStringLiteral(ATTENTION_LAB_DOC_FROM_BIN "/") + kGuide);
    if (QFileInfo(installed).isFile())
        return QFileInfo(installed).canonicalFilePath();
    // A build folder (its CMakeCache.txt above the program's app/ folder): the checkout's.
    if (QFileInfo(program.filePath(QStringLiteral("../CMakeCache.txt"))).isFile()) {
        const QString checkout = QDir(QStringLiteral(ATTENTION_LAB_SOURCE_DIR)).filePath(kGuide);
        if (QFileInfo(checkout).isFile())
            return QFileInfo(checkout).canonicalFilePath();
    }
    return {};
}

QString UserGuide::missingText(const QString& program_dir)
{
    return QCoreApplication::translate(
               "UserGuide",
               "The user guide was not found. It is installed with the program as %1, and in the source "
               "code as docs/window.md (README.md and the rest of docs/ beside it).")
        .arg(QDir::cleanPath(QDir(program_dir).filePath(QStringLiteral(ATTENTION_LAB_DOC_FROM_BIN "/") + kGuide)));
}

void UserGuide::open(QWidget* parent)
{
    const QString program_dir = QCoreApplication::applicationDirPath();
    const QString guide = locate(program_dir);
    if (!guide.isEmpty() && QDesktopServices::openUrl(QUrl::fromLocalFile(guide)))
        return;
    const QString text = guide.isEmpty()
                             ? missingText(program_dir)
                             : QCoreApplication::translate("UserGuide",
                                                           "No program on this desktop opens %1: open it with a text "
                                                           "editor or a Markdown viewer.")
                                   .arg(guide);
    auto* box = new QMessageBox(QMessageBox::Information, QCoreApplication::translate("UserGuide", "User guide"), text,
                                QMessageBox::Close, parent);
    box->setObjectName(QStringLiteral("UserGuideMissing"));
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);  // the path can be copied
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

}  // namespace attn
