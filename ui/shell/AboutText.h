#pragma once

#include <QString>

namespace attn {

// Help › About: the version, the licences of what the program ships and links, and where the
// documentation is. HTML for a QMessageBox.
QString aboutHtml();
// The same with `home` as the project's home page; a placeholder (a host under the reserved
// .invalid domain, what a build without a real home page has) is not offered as a link.
QString aboutHtml(const QString& home);

}  // namespace attn
