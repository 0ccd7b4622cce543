#pragma once

#include <QList>
#include <QString>

namespace attn {

// Text on its way through a tokenizer pipeline, remembering for every UTF-16 code unit the range
// of the input it came from, so each final token can be highlighted in the input however much
// normalisation (lower-casing, accent stripping, byte-level mapping) changed its spelling.
// A unit inserted by a step (a prefix space) has an empty range at the place it was inserted.
class NormalizedText {
public:
    // One code point with the input range it came from.
    struct Char {
        char32_t code = 0;
        qsizetype begin = 0;
        qsizetype end = 0;
    };

    NormalizedText() = default;
    // The units [begin, end) of the input, unchanged.
    static NormalizedText fromInput(const QString& input, qsizetype begin, qsizetype end);
    static NormalizedText fromChars(const QList<Char>& chars);

    const QString& text() const { return m_text; }
    qsizetype size() const { return m_text.size(); }
    bool isEmpty() const { return m_text.isEmpty(); }

    QList<Char> chars() const;
    NormalizedText slice(qsizetype from, qsizetype to) const;
    // The input range covered by the units [from, to): from the smallest start to the largest end.
    std::pair<qsizetype, qsizetype> inputRange(qsizetype from, qsizetype to) const;

    void append(char32_t code, qsizetype begin, qsizetype end);

private:
    QString m_text;
    QList<qsizetype> m_begin;  // per UTF-16 unit of m_text
    QList<qsizetype> m_end;
};

}  // namespace attn
