#pragma once

#include "core/base/Result.h"
#include "ui/registry/ViewRegistry.h"

#include <QString>

class QTextStream;

namespace attn {

class MainWindow;
struct CommandLineOptions;

// The command line's options for the window: what to show when it opens (settings, sentence,
// tab, head, compared heads, batch size) and --screenshot, which saves the drawn window as a PNG.
class WindowLauncher {
public:
    // The tab a command line asks for: --tab, else the one drawing --view (grid by default).
    static View tabFor(const CommandLineOptions& options);
    static Status apply(MainWindow& window, const CommandLineOptions& options);

    // Opens a window (with settings of its own in a temporary file: the user's settings are
    // neither read nor changed), applies the options, waits until the first result is computed
    // and every view of the tab has painted it, then writes QWidget::grab of the whole window to
    // options.screenshot_path atomically. Returns the exit status; errors as one `error:` line.
    // Needs a QApplication (works with QT_QPA_PLATFORM=offscreen).
    static int screenshot(const CommandLineOptions& options, QTextStream& err);
};

}  // namespace attn
