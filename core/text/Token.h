#pragma once

#include <QList>
#include <QString>

namespace attn {

struct Token {
    QString text;
    qsizetype begin = 0;  // index of the first UTF-16 code unit in the sentence
    qsizetype end = 0;    // one past the last

    bool operator==(const Token&) const = default;
};

using TokenList = QList<Token>;

}  // namespace attn
