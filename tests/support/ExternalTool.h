#pragma once

// Runs an outside tool the picture tests render with (rsvg-convert, pdftoppm).
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

namespace attn::testing {

// The empty string on success, else what went wrong.
inline QString runTool(const QString& program, const QStringList& arguments)
{
    const QString found = QStandardPaths::findExecutable(program);
    if (found.isEmpty())
        return QStringLiteral("%1 is not installed (scripts/bootstrap.sh installs it)").arg(program);
    QProcess process;
    process.start(found, arguments);
    if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return QStringLiteral("%1 %2 failed: %3")
            .arg(program, arguments.join(u' '), QString::fromLocal8Bit(process.readAllStandardError()));
    return {};
}

}  // namespace attn::testing
