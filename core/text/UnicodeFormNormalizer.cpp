#include "core/text/UnicodeFormNormalizer.h"

namespace attn {
namespace {

void appendAll(NormalizedText& out, const QString& text, qsizetype begin, qsizetype end)
{
    for (char32_t code : text.toUcs4())
        out.append(code, begin, end);
}

}  // namespace

void UnicodeFormNormalizer::normalize(NormalizedText& text) const
{
    const QString whole = text.text().normalized(m_form);
    if (whole == text.text())
        return;
    const QList<NormalizedText::Char> chars = text.chars();
    NormalizedText out;
    QString joined;
    for (qsizetype first = 0; first < chars.size();) {
        qsizetype last = first + 1;
        while (last < chars.size() && QChar::combiningClass(chars[last].code) != 0)
            ++last;
        QString sequence;
        qsizetype begin = chars[first].begin, end = chars[first].end;
        for (qsizetype i = first; i < last; ++i) {
            sequence += QString::fromUcs4(&chars[i].code, 1);
            begin = std::min(begin, chars[i].begin);
            end = std::max(end, chars[i].end);
        }
        const QString normalized = sequence.normalized(m_form);
        joined += normalized;
        appendAll(out, normalized, begin, end);
        first = last;
    }
    if (joined != whole) {
        const auto [begin, end] = text.inputRange(0, text.size());
        out = NormalizedText();
        appendAll(out, whole, begin, end);
    }
    text = std::move(out);
}

}  // namespace attn
