#include "app/CommandLine.h"
#include "app/HeadlessRunner.h"
#include "app/WindowLauncher.h"
#include "core/base/MemoryReuse.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"

#include <QApplication>
#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>
#include <cstdlib>
#include <memory>

using namespace attn;

namespace {

QStringList rawArguments(int argc, char** argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments.append(QString::fromLocal8Bit(argv[i]));
    return arguments;
}

bool hasDisplay()
{
    return qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY") ||
           qEnvironmentVariableIsSet("QT_QPA_PLATFORM");
}

void quietMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtFatalMsg) {
        fprintf(stderr, "error: %s\n", qPrintable(message));
        std::abort();
    }
}

}  // namespace

int main(int argc, char** argv)
{
    keepFreedBlocksForReuse();
    QTextStream out(stdout);
    QTextStream err(stderr);
    auto options = CommandLine::parse(rawArguments(argc, argv));
    if (!options) {
        err << "error: " << options.error() << '\n';
        return 2;
    }
    if (options->show_help) {
        out << CommandLine::helpText();
        return 0;
    }
    if (options->show_version) {
        out << "attention-lab " << ATTENTION_LAB_VERSION << '\n';
        return 0;
    }

    // JSON needs no display; pictures need Qt Gui, which works offscreen when there is no display.
    if (options->headless()) {
        // Standard error carries only the contract's one `error:` line: Qt's own notices (e.g.
        // "XDG_RUNTIME_DIR not set" from the offscreen platform) are dropped.
        qInstallMessageHandler(quietMessages);
        std::unique_ptr<QCoreApplication> app;
        if (options->export_path.isEmpty()) {
            app = std::make_unique<QCoreApplication>(argc, argv);
        } else {
            if (!hasDisplay())
                qputenv("QT_QPA_PLATFORM", "offscreen");
            app = std::make_unique<QApplication>(argc, argv);
        }
        return HeadlessRunner::run(*options, out, err);
    }

    if (!options->screenshot_path.isEmpty()) {
        qInstallMessageHandler(quietMessages);
        if (!hasDisplay())
            qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        return WindowLauncher::screenshot(*options, err);
    }

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("attention-lab"));
    QApplication::setApplicationName(QStringLiteral("attention-lab"));
    QApplication::setApplicationVersion(QStringLiteral(ATTENTION_LAB_VERSION));
    AppSettings settings;
    MainWindow window(&settings);
    // Options given on the command line win over the remembered settings.
    if (argc > 1)
        if (Status applied = WindowLauncher::apply(window, *options); !applied)
            err << "error: " << applied.error() << '\n';  // the window opens anyway
    window.show();
    return app.exec();
}
