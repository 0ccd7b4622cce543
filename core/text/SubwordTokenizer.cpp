#include "core/text/SubwordTokenizer.h"

#include <algorithm>

namespace attn {
namespace {

// Hugging Face works on Rust strings, which cannot hold a lone UTF-16 surrogate; replacing one
// with U+FFFD keeps every other index in place.
QString withoutLoneSurrogates(const QString& text)
{
    QString out = text;
    for (qsizetype i = 0; i < out.size(); ++i) {
        const QChar c = out.at(i);
        if (c.isHighSurrogate() && i + 1 < out.size() && out.at(i + 1).isLowSurrogate())
            ++i;
        else if (c.isSurrogate())
            out[i] = QChar(QChar::ReplacementCharacter);
    }
    return out;
}

}  // namespace

SubwordTokenizer::SubwordTokenizer(Parts parts) : m_parts(std::move(parts))
{
    QHash<int, QString> normalizedContent;
    for (const AddedVocabulary::Entry& entry : m_parts.added.entries()) {
        if (entry.special)
            m_specialIds.insert(entry.id);
        if (entry.normalized && m_parts.normalizer) {
            NormalizedText content = NormalizedText::fromInput(entry.content, 0, entry.content.size());
            m_parts.normalizer->normalize(content);
            normalizedContent.insert(entry.id, content.text());
        }
    }
    m_parts.added.setNormalizedContents(normalizedContent);
    if (m_parts.postProcessor)
        for (int id : m_parts.postProcessor->specialIds())
            m_specialIds.insert(id);
}

SubwordEncoding SubwordTokenizer::encode(const QString& input, bool addSpecialTokens) const
{
    const QString text = withoutLoneSurrogates(input);
    SubwordEncoding out;
    for (const AddedVocabulary::Piece& raw : m_parts.added.splitRaw(NormalizedText::fromInput(text, 0, text.size()))) {
        if (raw.id >= 0) {
            appendAdded(raw.id, raw.text, out);
            continue;
        }
        NormalizedText normalized = raw.text;
        if (m_parts.normalizer)
            m_parts.normalizer->normalize(normalized);
        for (const AddedVocabulary::Piece& piece : m_parts.added.splitNormalized(normalized)) {
            if (piece.id >= 0)
                appendAdded(piece.id, piece.text, out);
            else
                encodePiece(piece.text, out);
        }
    }
    for (qsizetype i = 0; i < out.size(); ++i)
        out.tokens[i].text = idToToken(out.ids[i]);
    if (m_parts.postProcessor)
        m_parts.postProcessor->process(out, addSpecialTokens);
    for (qsizetype i = 0; i < out.size(); ++i) {
        out.tokens[i].text = idToToken(out.ids[i]);
        out.special[i] = isSpecial(out.ids[i]);
    }
    return out;
}

void SubwordTokenizer::appendAdded(int id, const NormalizedText& piece, SubwordEncoding& out) const
{
    const auto [begin, end] = piece.inputRange(0, piece.size());
    out.ids.append(id);
    out.tokens.append(Token{QString(), begin, end});
    out.special.append(false);
}

void SubwordTokenizer::encodePiece(const NormalizedText& piece, SubwordEncoding& out) const
{
    if (piece.isEmpty())
        return;
    const QList<NormalizedText> words =
        m_parts.preTokenizer ? m_parts.preTokenizer->split(piece) : QList<NormalizedText>{piece};
    for (const NormalizedText& word : words) {
        for (const SubwordModel::Piece& token : m_parts.model->tokenize(word.text())) {
            const auto [begin, end] = word.inputRange(token.begin, token.end);
            out.ids.append(token.id);
            out.tokens.append(Token{QString(), begin, end});
            out.special.append(false);
        }
    }
}

QString SubwordTokenizer::idToToken(int id) const
{
    if (const AddedVocabulary::Entry* entry = m_parts.added.find(id))
        return entry->content;
    return m_parts.model->idToToken(id);
}

std::optional<int> SubwordTokenizer::tokenToId(const QString& token) const
{
    for (const AddedVocabulary::Entry& entry : m_parts.added.entries())
        if (entry.content == token)
            return entry.id;
    return m_parts.model->tokenToId(token);
}

int SubwordTokenizer::vocabSize() const
{
    int limit = m_parts.model->idLimit();
    for (const AddedVocabulary::Entry& entry : m_parts.added.entries())
        limit = std::max(limit, entry.id + 1);
    return limit;
}

}  // namespace attn
