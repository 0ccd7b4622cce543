#include "core/text/AddedVocabulary.h"

#include <QChar>

namespace attn {
namespace {

// Unicode word characters as the regular expressions Hugging Face uses for singleWord: letters,
// marks, decimal and letter numbers, connector punctuation and the zero-width joiners.
bool isWordChar(char32_t c)
{
    if (c == 0x200C || c == 0x200D)
        return true;
    switch (QChar::category(c)) {
        case QChar::Letter_Uppercase:
        case QChar::Letter_Lowercase:
        case QChar::Letter_Titlecase:
        case QChar::Letter_Modifier:
        case QChar::Letter_Other:
        case QChar::Mark_NonSpacing:
        case QChar::Mark_SpacingCombining:
        case QChar::Mark_Enclosing:
        case QChar::Number_DecimalDigit:
        case QChar::Number_Letter:
        case QChar::Punctuation_Connector:
            return true;
        default:
            return false;
    }
}

char32_t codePointBefore(const QString& s, qsizetype at)
{
    if (at >= 2 && s.at(at - 1).isLowSurrogate() && s.at(at - 2).isHighSurrogate())
        return QChar::surrogateToUcs4(s.at(at - 2), s.at(at - 1));
    return s.at(at - 1).unicode();
}

char32_t codePointAt(const QString& s, qsizetype at)
{
    if (s.at(at).isHighSurrogate() && at + 1 < s.size() && s.at(at + 1).isLowSurrogate())
        return QChar::surrogateToUcs4(s.at(at), s.at(at + 1));
    return s.at(at).unicode();
}

}  // namespace

void AddedVocabulary::add(const Entry& entry)
{
    // A token given twice keeps its last description, as in Hugging Face.
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        if (m_entries[i].content == entry.content) {
            m_indexById.remove(m_entries[i].id);
            m_entries[i] = entry;
            m_indexById.insert(entry.id, i);
            return;
        }
    }
    m_indexById.insert(entry.id, m_entries.size());
    m_entries.append(entry);
}

const AddedVocabulary::Entry* AddedVocabulary::find(int id) const
{
    const auto it = m_indexById.constFind(id);
    return it == m_indexById.cend() ? nullptr : &m_entries[it.value()];
}

QList<AddedVocabulary::Piece> AddedVocabulary::splitRaw(const NormalizedText& text) const
{
    return split(text, false);
}

QList<AddedVocabulary::Piece> AddedVocabulary::splitNormalized(const NormalizedText& text) const
{
    return split(text, true);
}

QList<AddedVocabulary::Piece> AddedVocabulary::split(const NormalizedText& text, bool normalizedTokens) const
{
    struct Candidate {
        const Entry* entry;
        QString pattern;
    };
    QList<Candidate> candidates;
    for (const Entry& entry : m_entries) {
        if (entry.normalized != normalizedTokens)
            continue;
        const QString pattern = normalizedTokens ? m_normalizedContent.value(entry.id, entry.content) : entry.content;
        if (!pattern.isEmpty())
            candidates.append({&entry, pattern});
    }
    if (candidates.isEmpty() || text.isEmpty())
        return {Piece{-1, text}};

    const QString& s = text.text();
    QList<Piece> pieces;
    qsizetype pieceStart = 0;  // where the current stretch of ordinary text began
    qsizetype searchFrom = 0;
    // Each candidate's next occurrence at or after searchFrom (-1: none left), found again only
    // when the search has passed it, so a long text is scanned about once per candidate.
    QList<qsizetype> next(candidates.size(), -2);
    while (searchFrom < s.size()) {
        // Leftmost, then longest.
        qsizetype bestAt = -1;
        const Candidate* best = nullptr;
        for (qsizetype i = 0; i < candidates.size(); ++i) {
            if (next[i] == -2 || (next[i] >= 0 && next[i] < searchFrom))
                next[i] = s.indexOf(candidates[i].pattern, searchFrom);
            const qsizetype at = next[i];
            const Candidate& c = candidates[i];
            if (at < 0)
                continue;
            if (best == nullptr || at < bestAt || (at == bestAt && c.pattern.size() > best->pattern.size())) {
                bestAt = at;
                best = &c;
            }
        }
        if (best == nullptr)
            break;
        qsizetype start = bestAt;
        qsizetype stop = bestAt + best->pattern.size();
        searchFrom = stop;
        const Entry& entry = *best->entry;
        if (entry.singleWord) {
            const bool wordBefore = start > 0 && isWordChar(codePointBefore(s, start));
            const bool wordAfter = stop < s.size() && isWordChar(codePointAt(s, stop));
            if (wordBefore || wordAfter)
                continue;
        }
        if (entry.lstrip) {
            while (start > pieceStart && QChar::isSpace(codePointBefore(s, start)))
                start -= QChar::requiresSurrogates(codePointBefore(s, start)) ? 2 : 1;
        }
        if (entry.rstrip) {
            while (stop < s.size() && QChar::isSpace(codePointAt(s, stop)))
                stop += QChar::requiresSurrogates(codePointAt(s, stop)) ? 2 : 1;
            searchFrom = stop;
        }
        if (pieceStart < start)
            pieces.append({-1, text.slice(pieceStart, start)});
        pieces.append({entry.id, text.slice(start, stop)});
        pieceStart = stop;
    }
    if (pieceStart < s.size())
        pieces.append({-1, text.slice(pieceStart, s.size())});
    return pieces;
}

}  // namespace attn
