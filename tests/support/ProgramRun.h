#pragma once

// Runs build/app/attention-lab as other tools drive it: no display and no inherited Qt platform,
// so the program has to manage headless on its own.
#include "tests/support/TestPaths.h"

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
    process.start(attn::testing::programPath(), arguments);
    if (!process.waitForFinished(120000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2, process.readAllStandardOutput(),
            process.readAllStandardError()};
}

// What is wrong with `run` as the contract's refusal, or an empty string: a non-zero exit, nothing
// on standard output, and exactly one line on standard error that starts with "error: " and holds
// `expected`. Used as QVERIFY2(problem.isEmpty(), qPrintable(problem)), so that a failure points at
// the test that expected the refusal.
inline QString refusalProblem(const ProgramRun& run, const QString& expected)
{
    const QString err = QString::fromUtf8(run.err);
    if (run.exit_code <= 0)
        return QStringLiteral("exit code %1, expected a refusal; stderr: %2").arg(run.exit_code).arg(err);
    if (!err.startsWith(QLatin1String("error: ")) || err.count(QLatin1Char('\n')) != 1 || !err.endsWith(QLatin1Char('\n')))
        return QStringLiteral("expected one line starting with 'error: ', got: %1").arg(err);
    if (!err.contains(expected))
        return QStringLiteral("expected the error to contain '%1', got: %2").arg(expected, err);
    if (!run.out.isEmpty())
        return QStringLiteral("expected nothing on standard output, got: %1").arg(QString::fromUtf8(run.out.left(200)));
    return {};
}
