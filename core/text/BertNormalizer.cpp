#include "core/text/BertNormalizer.h"

#include <QChar>
#include <QString>

#include <algorithm>

namespace attn {
namespace {

using Char = NormalizedText::Char;

bool isControl(char32_t c)
{
    if (c == '\t' || c == '\n' || c == '\r')
        return false;  // white space, not control
    const QChar::Category category = QChar::category(c);
    return category == QChar::Other_Control || category == QChar::Other_Format || category == QChar::Other_PrivateUse;
}

QList<Char> cleanText(const QList<Char>& in)
{
    QList<Char> out;
    out.reserve(in.size());
    for (Char c : in) {
        if (c.code == 0 || c.code == 0xFFFD || isControl(c.code))
            continue;
        if (BertNormalizer::isWhitespace(c.code))
            c.code = ' ';
        out.append(c);
    }
    return out;
}

QList<Char> padChineseChars(const QList<Char>& in)
{
    QList<Char> out;
    out.reserve(in.size());
    for (const Char& c : in) {
        if (BertNormalizer::isChineseChar(c.code)) {
            out.append({' ', c.begin, c.begin});
            out.append(c);
            out.append({' ', c.end, c.end});
        } else {
            out.append(c);
        }
    }
    return out;
}

// NFD one code point at a time, so each piece keeps the input range of its source character,
// then the canonical ordering of combining marks that NFD of the whole string would give.
QList<Char> decompose(const QList<Char>& in)
{
    QList<Char> out;
    out.reserve(in.size());
    for (const Char& c : in) {
        if (c.code < 0xC0) {  // nothing below U+00C0 has a canonical decomposition
            out.append(c);
            continue;
        }
        const char32_t one[1] = {c.code};
        const QString decomposed = QString::fromUcs4(one, 1).normalized(QString::NormalizationForm_D);
        for (char32_t code : decomposed.toUcs4())
            out.append({code, c.begin, c.end});
    }
    for (qsizetype i = 0; i < out.size();) {
        if (QChar::combiningClass(out[i].code) == 0) {
            ++i;
            continue;
        }
        qsizetype j = i;
        while (j < out.size() && QChar::combiningClass(out[j].code) != 0)
            ++j;
        std::stable_sort(out.begin() + i, out.begin() + j, [](const Char& a, const Char& b) {
            return QChar::combiningClass(a.code) < QChar::combiningClass(b.code);
        });
        i = j;
    }
    return out;
}

QList<Char> dropNonSpacingMarks(const QList<Char>& in)
{
    QList<Char> out;
    out.reserve(in.size());
    for (const Char& c : in)
        if (QChar::category(c.code) != QChar::Mark_NonSpacing)
            out.append(c);
    return out;
}

QList<Char> lowercase(const QList<Char>& in)
{
    QList<Char> out;
    out.reserve(in.size());
    for (const Char& c : in) {
        if (c.code < 0x80) {
            out.append({c.code >= 'A' && c.code <= 'Z' ? c.code + 32 : c.code, c.begin, c.end});
            continue;
        }
        // Full case mapping of the single character: 'İ' becomes "i̇", two code points.
        const char32_t one[1] = {c.code};
        for (char32_t code : QString::fromUcs4(one, 1).toLower().toUcs4())
            out.append({code, c.begin, c.end});
    }
    return out;
}

}  // namespace

bool BertNormalizer::isWhitespace(char32_t c)
{
    // The Unicode White_Space property: tab to carriage return, NEL, and the separators.
    if ((c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85)
        return true;
    if (c < 0xA0)
        return false;
    const QChar::Category category = QChar::category(c);
    return category == QChar::Separator_Space || category == QChar::Separator_Line ||
           category == QChar::Separator_Paragraph;
}

bool BertNormalizer::isChineseChar(char32_t c)
{
    // Hugging Face's table, which starts the fifth block at U+2B920 where Google's BERT has U+2B820.
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

void BertNormalizer::normalize(NormalizedText& text) const
{
    QList<Char> chars = text.chars();
    if (m_options.cleanText)
        chars = cleanText(chars);
    if (m_options.handleChineseChars)
        chars = padChineseChars(chars);
    if (m_options.stripAccents)
        chars = dropNonSpacingMarks(decompose(chars));
    if (m_options.lowercase)
        chars = lowercase(chars);
    text = NormalizedText::fromChars(chars);
}

}  // namespace attn
