#include "core/io/JsonCursor.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace attn {
namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void appendUtf8(QByteArray& out, char32_t code)
{
    if (code < 0x80) {
        out.append(char(code));
    } else if (code < 0x800) {
        out.append(char(0xC0 | (code >> 6)));
        out.append(char(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
        out.append(char(0xE0 | (code >> 12)));
        out.append(char(0x80 | ((code >> 6) & 0x3F)));
        out.append(char(0x80 | (code & 0x3F)));
    } else {
        out.append(char(0xF0 | (code >> 18)));
        out.append(char(0x80 | ((code >> 12) & 0x3F)));
        out.append(char(0x80 | ((code >> 6) & 0x3F)));
        out.append(char(0x80 | (code & 0x3F)));
    }
}

// The length of the UTF-8 sequence starting at text[pos] (RFC 3629: shortest form, no surrogates,
// at most U+10FFFF), or 0 when it is not valid.
int utf8Length(QByteArrayView text, qsizetype pos)
{
    auto byte = [&](qsizetype i) { return i < text.size() ? quint8(text[i]) : 0; };
    const quint8 lead = byte(pos);
    auto continuation = [&](qsizetype i, quint8 low = 0x80, quint8 high = 0xBF) {
        const quint8 b = byte(i);
        return b >= low && b <= high;
    };
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        return continuation(pos + 1) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        const quint8 low = lead == 0xE0 ? 0xA0 : 0x80;   // no overlong form
        const quint8 high = lead == 0xED ? 0x9F : 0xBF;  // no UTF-16 surrogate
        return continuation(pos + 1, low, high) && continuation(pos + 2) ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        const quint8 low = lead == 0xF0 ? 0x90 : 0x80;   // no overlong form
        const quint8 high = lead == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
        return continuation(pos + 1, low, high) && continuation(pos + 2) && continuation(pos + 3) ? 4 : 0;
    }
    return 0;
}

// The decimal exponent of a number's leading significant digit: 2 for "123", -3 for "0.00123e0".
// Only used to tell overflow from underflow, so the exponent saturates.
long long leadingDigitExponent(QByteArrayView text)
{
    qsizetype i = text.startsWith('-') ? 1 : 0;
    long long integerDigits = 0;
    bool significant = false;
    for (; i < text.size() && isDigit(text[i]); ++i)
        if (significant || text[i] != '0') {
            significant = true;
            ++integerDigits;
        }
    long long position = integerDigits - 1;
    if (i < text.size() && text[i] == '.') {
        long long zeros = 0;
        for (++i; i < text.size() && isDigit(text[i]); ++i) {
            if (!significant && text[i] == '0')
                ++zeros;
            else
                significant = true;
        }
        if (integerDigits == 0)
            position = -(zeros + 1);
    }
    long long exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        const bool negative = i < text.size() && text[i] == '-';
        if (i < text.size() && (text[i] == '-' || text[i] == '+'))
            ++i;
        for (; i < text.size() && isDigit(text[i]); ++i)
            exponent = std::min<long long>(exponent * 10 + (text[i] - '0'), 1'000'000'000);
        if (negative)
            exponent = -exponent;
    }
    return position + exponent;
}

}  // namespace

JsonCursor::JsonCursor(QByteArrayView text, QString context) : m_text(text), m_context(std::move(context))
{
}

Error JsonCursor::syntaxError(const QString& what) const
{
    return Error{QStringLiteral("%1 (%2 at byte %3)").arg(m_context, what).arg(m_pos)};
}

void JsonCursor::skipSpace()
{
    while (m_pos < m_text.size()) {
        const char c = m_text[m_pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        ++m_pos;
    }
}

char JsonCursor::peek()
{
    skipSpace();
    return m_pos < m_text.size() ? m_text[m_pos] : '\0';
}

Status JsonCursor::expect(char c, const char* what)
{
    skipSpace();
    if (m_pos >= m_text.size())
        return syntaxError(QStringLiteral("unexpected end, %1 expected").arg(QLatin1String(what)));
    if (m_text[m_pos] != c)
        return syntaxError(QStringLiteral("%1 expected").arg(QLatin1String(what)));
    ++m_pos;
    return {};
}

Status JsonCursor::push(bool object)
{
    if (m_levels.size() >= size_t(kMaxDepth))
        return syntaxError(QStringLiteral("more than %1 nested arrays and objects").arg(kMaxDepth));
    m_levels.push_back({object, true});
    return {};
}

Status JsonCursor::beginObject()
{
    if (Status s = expect('{', "'{'"); !s)
        return s;
    return push(true);
}

Status JsonCursor::beginArray()
{
    if (Status s = expect('[', "'['"); !s)
        return s;
    return push(false);
}

Result<std::optional<QString>> JsonCursor::nextKey()
{
    if (m_levels.empty() || !m_levels.back().object)
        return syntaxError(QStringLiteral("no object is open"));
    Level& level = m_levels.back();
    const char c = peek();
    if (c == '}' && m_pos < m_text.size()) {
        ++m_pos;
        m_levels.pop_back();
        return std::optional<QString>{};
    }
    const bool first = level.first;
    if (!first) {
        if (Status s = expect(',', "',' or '}'"); !s)
            return Error{s.error()};
    }
    level.first = false;
    if (peek() != '"')
        return syntaxError(first ? QStringLiteral("a key or '}' expected") : QStringLiteral("a key expected"));
    auto key = string();
    if (!key)
        return Error{key.error()};
    if (Status s = expect(':', "':'"); !s)
        return Error{s.error()};
    return std::optional<QString>{std::move(key).value()};
}

Result<bool> JsonCursor::nextElement()
{
    if (m_levels.empty() || m_levels.back().object)
        return syntaxError(QStringLiteral("no array is open"));
    Level& level = m_levels.back();
    const char c = peek();
    if (c == ']' && m_pos < m_text.size()) {
        ++m_pos;
        m_levels.pop_back();
        return false;
    }
    if (!level.first) {
        if (Status s = expect(',', "',' or ']'"); !s)
            return Error{s.error()};
    }
    level.first = false;
    return true;
}

Result<QString> JsonCursor::string()
{
    if (Status s = expect('"', "a string"); !s)
        return Error{s.error()};
    QByteArray utf8;  // the decoded string
    while (true) {
        if (m_pos >= m_text.size())
            return syntaxError(QStringLiteral("unexpected end inside a string"));
        const char c = m_text[m_pos];
        if (c == '"') {
            ++m_pos;
            return QString::fromUtf8(utf8);
        }
        if (quint8(c) < 0x20)
            return syntaxError(QStringLiteral("unescaped control character in a string"));
        if (c != '\\') {
            const int length = utf8Length(m_text, m_pos);
            if (length == 0)
                return syntaxError(QStringLiteral("invalid UTF-8"));
            utf8.append(m_text.sliced(m_pos, length));
            m_pos += length;
            continue;
        }
        ++m_pos;
        const char escape = m_pos < m_text.size() ? m_text[m_pos] : '\0';
        ++m_pos;
        switch (escape) {
            case '"':
            case '\\':
            case '/':
                utf8.append(escape);
                continue;
            case 'b':
                utf8.append('\b');
                continue;
            case 'f':
                utf8.append('\f');
                continue;
            case 'n':
                utf8.append('\n');
                continue;
            case 'r':
                utf8.append('\r');
                continue;
            case 't':
                utf8.append('\t');
                continue;
            case 'u':
                break;
            default:
                --m_pos;
                return syntaxError(QStringLiteral("invalid escape in a string"));
        }
        auto hex4 = [&]() -> int {
            if (m_pos + 4 > m_text.size())
                return -1;
            int value = 0;
            for (int i = 0; i < 4; ++i) {
                const int digit = hexValue(m_text[m_pos + i]);
                if (digit < 0)
                    return -1;
                value = value * 16 + digit;
            }
            m_pos += 4;
            return value;
        };
        const int unit = hex4();
        if (unit < 0)
            return syntaxError(QStringLiteral("invalid \\u escape"));
        char32_t code = char32_t(unit);
        if (unit >= 0xDC00 && unit <= 0xDFFF)
            return syntaxError(QStringLiteral("lone low surrogate in a \\u escape"));
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (m_pos + 2 > m_text.size() || m_text[m_pos] != '\\' || m_text[m_pos + 1] != 'u')
                return syntaxError(QStringLiteral("lone high surrogate in a \\u escape"));
            m_pos += 2;
            const int low = hex4();
            if (low < 0xDC00 || low > 0xDFFF)
                return syntaxError(QStringLiteral("high surrogate without its low half in a \\u escape"));
            code = 0x10000 + ((char32_t(unit) - 0xD800) << 10) + (char32_t(low) - 0xDC00);
        }
        appendUtf8(utf8, code);
    }
}

Result<JsonCursor::Number> JsonCursor::number()
{
    skipSpace();
    const qsizetype start = m_pos;
    auto at = [&](qsizetype i) { return i < m_text.size() ? m_text[i] : '\0'; };
    Number n;
    n.integer_syntax = true;
    if (at(m_pos) == '-')
        ++m_pos;
    if (at(m_pos) == '0') {
        ++m_pos;
    } else if (isDigit(at(m_pos))) {
        while (isDigit(at(m_pos)))
            ++m_pos;
    } else {
        return syntaxError(QStringLiteral("a number expected"));
    }
    if (at(m_pos) == '.') {
        ++m_pos;
        n.integer_syntax = false;
        if (!isDigit(at(m_pos)))
            return syntaxError(QStringLiteral("a digit expected after the decimal point"));
        while (isDigit(at(m_pos)))
            ++m_pos;
    }
    if (at(m_pos) == 'e' || at(m_pos) == 'E') {
        ++m_pos;
        n.integer_syntax = false;
        if (at(m_pos) == '+' || at(m_pos) == '-')
            ++m_pos;
        if (!isDigit(at(m_pos)))
            return syntaxError(QStringLiteral("a digit expected in the exponent"));
        while (isDigit(at(m_pos)))
            ++m_pos;
    }
    n.text = m_text.sliced(start, m_pos - start);
    const auto [end, error] = std::from_chars(n.text.begin(), n.text.end(), n.value);
    if (error == std::errc::result_out_of_range) {
        const bool negative = n.text.startsWith('-');
        const double magnitude = leadingDigitExponent(n.text) < 0 ? 0.0 : std::numeric_limits<double>::infinity();
        n.value = negative ? -magnitude : magnitude;
    } else if (error != std::errc() || end != n.text.end()) {
        m_pos = start;
        return syntaxError(QStringLiteral("a number that cannot be decoded"));
    }
    return n;
}

Status JsonCursor::literal(QByteArrayView word)
{
    skipSpace();
    if (m_text.sliced(m_pos).startsWith(word)) {
        m_pos += word.size();
        return {};
    }
    return syntaxError(QStringLiteral("a value expected"));
}

Status JsonCursor::skipValue()
{
    const size_t base = m_levels.size();
    for (;;) {
        // At the start of a value.
        bool descended = false;
        const char c = peek();
        if (m_pos >= m_text.size())
            return syntaxError(QStringLiteral("unexpected end, a value expected"));
        if (c == '{') {
            if (Status s = beginObject(); !s)
                return s;
            auto key = nextKey();
            if (!key)
                return Error{key.error()};
            descended = key->has_value();
        } else if (c == '[') {
            if (Status s = beginArray(); !s)
                return s;
            auto more = nextElement();
            if (!more)
                return Error{more.error()};
            descended = *more;
        } else if (c == '"') {
            if (auto s = string(); !s)
                return Error{s.error()};
        } else if (c == 't' || c == 'f' || c == 'n') {
            if (Status s = literal(c == 't' ? "true" : c == 'f' ? "false" : "null"); !s)
                return s;
        } else if (c == '-' || isDigit(c)) {
            if (auto n = number(); !n)
                return Error{n.error()};
        } else {
            return syntaxError(QStringLiteral("a value expected"));
        }
        if (descended)
            continue;
        // The value is complete: move on to the next one inside the containers opened here.
        for (;;) {
            if (m_levels.size() <= base)
                return {};
            if (m_levels.back().object) {
                auto key = nextKey();
                if (!key)
                    return Error{key.error()};
                if (key->has_value())
                    break;
            } else {
                auto more = nextElement();
                if (!more)
                    return Error{more.error()};
                if (*more)
                    break;
            }
        }
    }
}

Status JsonCursor::finish()
{
    skipSpace();
    if (m_pos < m_text.size())
        return syntaxError(QStringLiteral("unexpected text after the JSON value"));
    return {};
}

}  // namespace attn
