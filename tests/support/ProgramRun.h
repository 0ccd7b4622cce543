#pragma once

// Runs build/app/attention-lab as other tools drive it: no display and no inherited Qt platform,
// so the program has to manage headless on its own.
#include <QProcess>
#include <QStringList>

struct ProgramRun {
    int exit_code = -1;  // -1: did not finish in time, -2: crashed
    QByteArray out;
    QByteArray err;
};

// `environment`: variables set on top (e.g. a DISPLAY to try).
inline ProgramRun runProgram(const QStringList& arguments, const QList<QPair<QString, QString>>& environment = {})
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    for (const auto& [name, value] : environment)
        env.insert(name, value);
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(ATTENTION_LAB_EXE), arguments);
    if (!process.waitForFinished(120000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2, process.readAllStandardOutput(),
            process.readAllStandardError()};
}
