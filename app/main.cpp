#include "app/CommandLine.h"
#include "app/HeadlessRunner.h"
#include "app/WindowLauncher.h"
#include "core/base/MemoryReuse.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"

#include <QApplication>
#include <QCoreApplication>
#include <QIcon>
#include <QTextStream>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
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

// Whether argv names one of these options (-name, --name or --name=value).
bool mentions(const QStringList& arguments, std::initializer_list<const char*> names)
{
    for (const QString& argument : arguments)
        for (const char* name : names) {
            const QString option = QString::fromLatin1(name);
            for (const QString& dashes : {QStringLiteral("-"), QStringLiteral("--")})
                if (argument == dashes + option || argument.startsWith(dashes + option + QLatin1Char('=')))
                    return true;
        }
    return false;
}

// Qt's first notice of a run that holds its notices back: when no platform plugin starts (a
// display named but out of reach) it says why, where Qt's fatal message only lists the plugins.
QString g_first_notice;
const char* g_fatal_prefix = "";

// A headless run's messages, and the window's while its QApplication starts: notices held back,
// a fatal one becomes one error line and exit status 1 rather than Qt's abort.
void heldMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtFatalMsg) {
        const bool no_platform = message.contains(QLatin1String("platform plugin"));
        const QString reason = no_platform && !g_first_notice.isEmpty() ? g_first_notice : message.section(u'\n', 0, 0);
        fprintf(stderr, "error: %s%s\n", g_fatal_prefix, qPrintable(reason));
        fflush(stderr);
        std::_Exit(1);
    }
    if (g_first_notice.isEmpty())
        g_first_notice = message;
}

// A run without the window that needs Qt Gui (pictures; Qt's own options): notices held back,
// and the offscreen platform when there is no display.
std::unique_ptr<QApplication> startHeadlessApplication(int& argc, char** argv)
{
    qInstallMessageHandler(heldMessages);
    if (!hasDisplay())
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return std::make_unique<QApplication>(argc, argv);
}

std::unique_ptr<QApplication> startWindowApplication(int& argc, char** argv)
{
    g_fatal_prefix = "cannot open the window: ";
    const QtMessageHandler previous = qInstallMessageHandler(heldMessages);
    auto app = std::make_unique<QApplication>(argc, argv);
    qInstallMessageHandler(previous);
    return app;
}

}  // namespace

int main(int argc, char** argv)
{
    keepFreedBlocksForReuse();
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QStringList raw = rawArguments(argc, argv);
    const bool without_window = mentions(raw, {"json", "export", "screenshot", "save-session"});
    auto options = CommandLine::parse(raw);
    std::unique_ptr<QCoreApplication> app;
    if (!options && (hasDisplay() || without_window || mentions(raw, {"platform"}))) {
        // Perhaps Qt's own options (-style, -platform, -stylesheet, -reverse, ...): QApplication
        // takes them out of argv; the command line reads what is left.
        app = without_window ? startHeadlessApplication(argc, argv) : startWindowApplication(argc, argv);
        // QGuiApplication takes -session ID (X11 session management) out of argv as one of its own
        // options: the command line's --session FILE goes back in.
        QStringList arguments = QCoreApplication::arguments();
        for (qsizetype i = 1; i + 1 < raw.size(); ++i)
            if ((raw[i] == u"--session" || raw[i] == u"-session") && !arguments.contains(raw[i]))
                arguments << raw[i] << raw[i + 1];
        options = CommandLine::parse(arguments);
    }
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
        qInstallMessageHandler(heldMessages);
        if (!app && options->export_path.isEmpty())
            app = std::make_unique<QCoreApplication>(argc, argv);
        else if (!app)
            app = startHeadlessApplication(argc, argv);
        return HeadlessRunner::run(*options, out, err);
    }

    if (!options->screenshot_path.isEmpty()) {
        qInstallMessageHandler(heldMessages);
        if (!app)
            app = startHeadlessApplication(argc, argv);
        return WindowLauncher::screenshot(*options, err);
    }

    // Without a display Qt's default platform aborts the process after four lines of its own.
    if (!app && !hasDisplay() && !mentions(raw, {"platform"})) {
        err << "error: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set): "
               "--export, --json and --screenshot work without one\n";
        return 1;
    }
    if (!app)
        app = startWindowApplication(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("attention-lab"));
    QApplication::setApplicationName(QStringLiteral("attention-lab"));
    QApplication::setApplicationVersion(QStringLiteral(ATTENTION_LAB_VERSION));
    // Wayland compositors find the .desktop file (and so the icon) by this name.
    QApplication::setDesktopFileName(QStringLiteral(ATTENTION_LAB_APP_ID));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral(ATTENTION_LAB_APP_ID),
                                                 QIcon(QStringLiteral(":/icons/" ATTENTION_LAB_APP_ID ".svg"))));
    AppSettings settings;
    MainWindow window(&settings);
    // Options given on the command line (besides Qt's, taken by QApplication) win over the
    // remembered settings.
    if (QCoreApplication::arguments().size() > 1 || mentions(raw, {"session"}))
        if (Status applied = WindowLauncher::apply(window, *options); !applied)
            err << "error: " << applied.error() << '\n';  // the window opens anyway
    window.show();
    return QApplication::exec();
}
