#include "ui/shell/AboutText.h"

#include "core/base/InstructionSet.h"

#include <QCoreApplication>
#include <QUrl>

namespace attn {

QString aboutHtml()
{
    return aboutHtml(QStringLiteral(ATTENTION_LAB_HOMEPAGE));
}

QString aboutHtml(const QString& home)
{
    const QUrl url(home);
    const bool placeholder = !url.isValid() || url.host().isEmpty() || url.host().endsWith(QLatin1String(".invalid"));
    const QString where = placeholder
                              ? QCoreApplication::translate("attn::MainWindow", "README.md and docs/ beside the sources")
                              : QCoreApplication::translate("attn::MainWindow", "the <a href='%1'>home page</a>, its README.md and docs/")
                                    .arg(home.toHtmlEscaped());
    return QCoreApplication::translate(
               "attn::MainWindow",
               "<p><b>attention-lab</b> %1</p>"
               "<p>What multi-head attention does to a sentence, head by head.</p>"
               "<p><b>Licence</b>: free software under the GNU General Public License, version 3 or (at your "
               "option) any later version (GPL-3.0-or-later), with no warranty. The full text is in LICENSE "
               "beside the sources; the package's copyright file lists the licence of every part.</p>"
               "<p><b>Documentation</b>: %2 (the window, whole models, speed) and docs/command-line.md (every "
               "option); <code>attention-lab --help</code> and "
               "<code>man attention-lab</code>.</p>"
               "<p><b>Shipped data</b>: the toy 4-dimensional example (toy-4d.json, toy-4d-input.npy) is written "
               "for this program and distributed with it, under its terms. No vocabulary or model weights are "
               "shipped: the weights you open are your own files.</p>"
               "<p><b>Linked libraries</b>: Qt %3 (LGPL 3; Help › About Qt), QCustomPlot (GPL 3), Eigen (MPL 2), "
               "QuaZip (LGPL 2.1) with zlib (zlib licence).</p>"
               "<p><b>Engine</b>: compiled for %4.</p>")
        .arg(QCoreApplication::applicationVersion().toHtmlEscaped(), where,
             QString::fromLatin1(qVersion()), engineInstructionSet().toHtmlEscaped());
}

}  // namespace attn
