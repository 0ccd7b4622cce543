#pragma once

// Strict JSON (RFC 8259), read in place from front to back, for parsers of untrusted files that
// must check every count before they allocate and must notice a repeated key (QJsonDocument
// builds the whole tree first, which costs about 100 bytes per number, and keeps the last of two
// equal keys):
//   - values: objects, arrays, strings, numbers, true, false, null; whitespace is space, tab,
//     line feed and carriage return only (a byte-order mark is not whitespace);
//   - strings: UTF-8 checked byte by byte (no overlong forms, no surrogates, nothing above
//     U+10FFFF); escapes \" \\ \/ \b \f \n \r \t and \uXXXX, where a surrogate must be half of a
//     pair; control characters below 0x20 only escaped;
//   - numbers: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, decoded to the nearest double
//     (beyond the double range: +-infinity; below it: +-0);
//   - nesting at most kMaxDepth containers deep.
// The caller walks the document: beginObject() then nextKey() until it returns nothing (each
// key's value read or skipped before the next key), beginArray() then nextElement() likewise.
// Every syntax error is one message: "<context> (<what> at byte N)".

#include "core/base/Result.h"

#include <QByteArrayView>
#include <QString>

#include <optional>
#include <vector>

namespace attn {

class JsonCursor {
public:
    static constexpr int kMaxDepth = 128;

    struct Number {
        QByteArrayView text;  // as written, e.g. "-1.5e3"
        double value = 0;
        bool integer_syntax = false;  // no fraction and no exponent: "12", "-3"
    };

    // `context` starts every syntax error message, e.g. "the header is not valid JSON".
    JsonCursor(QByteArrayView text, QString context);

    // The first byte of the next value after whitespace ('{', '[', '"', 't', 'f', 'n', '-' or a
    // digit for valid JSON), or '\0' at the end of the text.
    char peek();
    qsizetype offset() const { return m_pos; }

    Status beginObject();
    // The next key of the innermost object (its ':' consumed), or nothing after its closing '}'.
    Result<std::optional<QString>> nextKey();
    Status beginArray();
    // True when the innermost array has another element (its ',' consumed), false after ']'.
    Result<bool> nextElement();

    Result<QString> string();
    Result<Number> number();
    // Any value, checked as thoroughly as if it were read.
    Status skipValue();
    // Only whitespace may follow the document.
    Status finish();

    // A syntax error at the current position.
    Error syntaxError(const QString& what) const;

private:
    struct Level {
        bool object = false;
        bool first = true;
    };

    void skipSpace();
    Status expect(char c, const char* what);
    Status literal(QByteArrayView word);
    Status push(bool object);

    QByteArrayView m_text;
    QString m_context;
    qsizetype m_pos = 0;
    std::vector<Level> m_levels;  // the open containers, innermost last
};

}  // namespace attn
