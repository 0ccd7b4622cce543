#pragma once

#include <QString>

class QWidget;

namespace attn {

// Help › User guide: the guide shipped with the program (docs/window.md, with README.md and the
// rest of docs/ beside it), opened in the desktop's viewer for its type. Installed, it is under
// the documentation folder (share/doc/attention-lab/docs/); run from a build folder, the
// checkout's docs/.
class UserGuide {
public:
    // The guide for a program in `program_dir`, or "" when there is none: the installed copy
    // (program_dir/../share/doc/attention-lab/docs/window.md, as installed), else, from a build
    // folder, the checkout's.
    static QString locate(const QString& program_dir);
    // Where the guide is said to be when it is not found.
    static QString missingText(const QString& program_dir);
    // Opens the guide of the running program, or says where it is when it cannot be found or
    // opened (a message box over `parent`).
    static void open(QWidget* parent);
};

}  // namespace attn
