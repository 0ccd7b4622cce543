#include "core/text/ByteLevelPreTokenizer.h"

#include "core/text/ByteLevelAlphabet.h"

namespace attn {
namespace {

// GPT-2's pattern `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
// with \s spelt out: Hugging Face runs it in Oniguruma, whose Unicode \s is U+0009–U+000D, U+0085
// and the Z categories (so U+00A0 and U+3000 are white space but U+FEFF is not), while PCRE2's
// \s leaves out U+0085.
const QString kWhite = QStringLiteral("\\x{09}-\\x{0D}\\x{85}\\p{Z}");
const QString kPattern =
    QStringLiteral("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^%1\\p{L}\\p{N}]+|[%1]+(?![^%1])|[%1]+").arg(kWhite);

void appendBytes(NormalizedText& out, char32_t code, qsizetype begin, qsizetype end)
{
    unsigned char bytes[4];
    int count = 0;
    if (code < 0x80) {
        bytes[count++] = static_cast<unsigned char>(code);
    } else if (code < 0x800) {
        bytes[count++] = static_cast<unsigned char>(0xC0 | (code >> 6));
        bytes[count++] = static_cast<unsigned char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        bytes[count++] = static_cast<unsigned char>(0xE0 | (code >> 12));
        bytes[count++] = static_cast<unsigned char>(0x80 | ((code >> 6) & 0x3F));
        bytes[count++] = static_cast<unsigned char>(0x80 | (code & 0x3F));
    } else {
        bytes[count++] = static_cast<unsigned char>(0xF0 | (code >> 18));
        bytes[count++] = static_cast<unsigned char>(0x80 | ((code >> 12) & 0x3F));
        bytes[count++] = static_cast<unsigned char>(0x80 | ((code >> 6) & 0x3F));
        bytes[count++] = static_cast<unsigned char>(0x80 | (code & 0x3F));
    }
    for (int i = 0; i < count; ++i)
        out.append(ByteLevelAlphabet::charForByte(bytes[i]).unicode(), begin, end);
}

NormalizedText toByteLevel(const NormalizedText& word)
{
    NormalizedText out;
    for (const NormalizedText::Char& c : word.chars())
        appendBytes(out, c.code, c.begin, c.end);
    return out;
}

}  // namespace

ByteLevelPreTokenizer::ByteLevelPreTokenizer(bool addPrefixSpace, bool useRegex)
    : m_addPrefixSpace(addPrefixSpace),
      m_useRegex(useRegex),
      m_pattern(kPattern, QRegularExpression::UseUnicodePropertiesOption)
{
    m_pattern.optimize();
}

QList<NormalizedText> ByteLevelPreTokenizer::split(const NormalizedText& text) const
{
    NormalizedText prefixed;
    const NormalizedText* source = &text;
    if (m_addPrefixSpace && !text.isEmpty() && !text.text().startsWith(u' ')) {
        const qsizetype at = text.inputRange(0, 1).first;
        prefixed.append(' ', at, at);
        for (const NormalizedText::Char& c : text.chars())
            prefixed.append(c.code, c.begin, c.end);
        source = &prefixed;
    }
    QList<NormalizedText> words;
    if (source->isEmpty())
        return words;
    if (!m_useRegex) {
        words.append(toByteLevel(*source));
        return words;
    }
    // The pattern matches every character (white space, letters, digits or anything else), so
    // the matches tile the text.
    for (auto it = m_pattern.globalMatch(source->text()); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        words.append(toByteLevel(source->slice(match.capturedStart(), match.capturedEnd())));
    }
    return words;
}

}  // namespace attn
