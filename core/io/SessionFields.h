#pragma once

#include <QString>

#include <cstdint>
#include <span>

namespace attn {

// How a session file spells a value, and what the reader checks before it is used.
enum class SessionValueType {
    Text,         // a string of at most `maximum` characters
    Choice,       // one of `choices` ("a|b|c")
    File,         // a path to a file that exists (relative: to the session file's folder)
    Folder,       // a path to a folder that exists (relative: to the session file's folder)
    Integer,      // from `minimum` to `maximum`
    IntegerList,  // at least 1 and at most `maximum_count` integers, each from `minimum` to `maximum`
    Number,       // a finite number from `minimum` to `maximum`
    Flag,         // true or false (false: as if the option were not given)
};

// One thing a session holds: its key in the file, its type and limits, the command-line option it
// equals (its value is the option's value, as the command line spells it), and what it sets in the
// window. `replaced_by` names other options ("a|b") that replace it when the command line gives
// them beside --session (the command line's own option always does).
struct SessionField {
    const char* key;
    SessionValueType type;
    const char* option;  // without the dashes
    const char* window;
    double minimum = 0;
    double maximum = 0;
    const char* choices = nullptr;
    int maximum_count = 0;
    const char* replaced_by = nullptr;
};

// The table of what a session holds (docs/sessions.md): adding a field is adding a row.
class SessionFields {
public:
    static std::span<const SessionField> rows();
    static const SessionField* find(QStringView key);
    static const SessionField* findOption(QStringView option);
};

}  // namespace attn
