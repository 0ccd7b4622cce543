#pragma once

#include <QString>

namespace attn {

// Text from a file (a token, a tensor or key name, a value) made safe to put inside an error
// message, which is one printable line whatever the file holds: backslashes and double quotes
// escaped, line breaks, tabs and every other control character (C0, DEL, C1, U+2028, U+2029)
// written as JSON writes them (\n, \r, \t, \u0000).
inline QString escapedForMessage(const QString& text)
{
    QString out;
    out.reserve(text.size());
    for (QChar c : text) {
        const char16_t u = c.unicode();
        if (u == u'\\' || u == u'"') {
            out += u'\\';
            out += c;
        } else if (u == u'\n') {
            out += QStringLiteral("\\n");
        } else if (u == u'\r') {
            out += QStringLiteral("\\r");
        } else if (u == u'\t') {
            out += QStringLiteral("\\t");
        } else if (u < 0x20 || (u >= 0x7f && u < 0xa0) || u == 0x2028 || u == 0x2029) {
            out += QStringLiteral("\\u%1").arg(int(u), 4, 16, QLatin1Char('0'));
        } else {
            out += c;
        }
    }
    return out;
}

// The same in double quotes, cut after `max_chars` UTF-16 units (never inside a surrogate pair)
// with "…" when longer.
inline QString quotedForMessage(const QString& text, qsizetype max_chars = 40)
{
    if (text.size() <= max_chars)
        return u'"' + escapedForMessage(text) + u'"';
    qsizetype cut = max_chars;
    if (cut > 0 && text.at(cut - 1).isHighSurrogate())
        --cut;
    return u'"' + escapedForMessage(text.left(cut)) + QStringLiteral("…\"");
}

}  // namespace attn
