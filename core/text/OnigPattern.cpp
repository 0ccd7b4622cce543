#include "core/text/OnigPattern.h"

#include "core/base/MessageText.h"

namespace attn {
namespace {

const QString kWhite = QStringLiteral("\\x{09}-\\x{0D}\\x{85}\\p{Z}");

const QRegularExpression::PatternOptions kOptions =
    QRegularExpression::UseUnicodePropertiesOption | QRegularExpression::MultilineOption;

}  // namespace

Result<QRegularExpression> OnigPattern::compile(const QString& pattern)
{
    QString translated;
    translated.reserve(pattern.size() + 32);
    bool inClass = false;  // inside [...]; PCRE2 reads a '[' there as itself
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern.at(i);
        if (c == u'\\' && i + 1 < pattern.size()) {
            const QChar next = pattern.at(i + 1);
            ++i;
            if (next == u's') {
                translated += inClass ? kWhite : QStringLiteral("[%1]").arg(kWhite);
            } else if (next == u'S') {
                if (inClass)
                    return Error{
                        QStringLiteral("the pattern %1 has \\S inside a character class, which is not supported")
                            .arg(quotedForMessage(pattern))};
                translated += QStringLiteral("[^%1]").arg(kWhite);
            } else {
                translated += c;
                translated += next;
            }
            continue;
        }
        if (c == u'[' && !inClass) {
            inClass = true;
            translated += c;
            // A ']' first in a class (after an optional '^') is a literal.
            if (i + 1 < pattern.size() && pattern.at(i + 1) == u'^') {
                translated += pattern.at(++i);
            }
            if (i + 1 < pattern.size() && pattern.at(i + 1) == u']')
                translated += pattern.at(++i);
            continue;
        }
        if (c == u']')
            inClass = false;
        translated += c;
    }
    QRegularExpression compiled(translated, kOptions);
    if (!compiled.isValid())
        return Error{QStringLiteral("the pattern %1 is not a valid regular expression (%2)")
                         .arg(quotedForMessage(pattern), compiled.errorString())};
    compiled.optimize();
    return compiled;
}

QRegularExpression OnigPattern::literal(const QString& text)
{
    QRegularExpression compiled(QRegularExpression::escape(text), kOptions);
    compiled.optimize();
    return compiled;
}

}  // namespace attn
