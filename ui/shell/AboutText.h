#pragma once

#include <QString>

namespace attn {

// Help › About: the version, the licences of what the program ships and links, and where the
// documentation is. HTML for a QMessageBox.
QString aboutHtml();

}  // namespace attn
