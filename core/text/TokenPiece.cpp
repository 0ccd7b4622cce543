#include "core/text/TokenPiece.h"

#include "core/text/ByteLevelAlphabet.h"

#include <QByteArray>
#include <QRegularExpression>

namespace attn {
namespace {

bool isSpecial(const QString& spelled)
{
    static const QRegularExpression pattern(QStringLiteral("^(\\[[A-Za-z_]+[0-9]*\\]|<\\|[^|]+\\|>|</?[a-z]+>)$"));
    return pattern.match(spelled).hasMatch();
}

// Each character of a byte-level spelling stands for one byte; the bytes are UTF-8 unless the
// piece splits a character, when the spelling is kept as it is.
QString decodeByteLevel(const QString& spelled)
{
    QByteArray bytes;
    for (QChar c : spelled) {
        const std::optional<unsigned char> byte = ByteLevelAlphabet::byteForChar(c);
        if (!byte)
            return spelled;
        bytes.append(char(*byte));
    }
    const QString text = QString::fromUtf8(bytes);
    return text.contains(QChar::ReplacementCharacter) ? spelled : text;
}

QString visibleControls(QString text)
{
    text.replace(QLatin1Char('\n'), QChar(u'\u21B5'));
    text.replace(QLatin1Char('\r'), QChar(u'\u240D'));
    text.replace(QLatin1Char('\t'), QChar(u'\u21E5'));
    return text;
}

}  // namespace

TokenPiece TokenPiece::of(const QString& spelled, bool byte_level, const TokenPiece* previous)
{
    TokenPiece piece;
    piece.spelled = spelled;
    piece.special = isSpecial(spelled);
    if (piece.special) {
        piece.text = spelled;
        return piece;
    }
    if (byte_level) {
        QString text = decodeByteLevel(spelled);
        piece.leading_space = text.startsWith(QLatin1Char(' ')) && text.size() > 1;
        if (piece.leading_space)
            text.remove(0, 1);
        piece.continuation =
            !piece.leading_space && previous && !previous->special && !text.startsWith(QLatin1Char('\n'));
        piece.text = visibleControls(text);
        return piece;
    }
    // SentencePiece marks a word's start with U+2581 instead.
    if (spelled.startsWith(QChar(kSentencePieceSpace)) && spelled.size() > 1) {
        piece.leading_space = true;
        piece.text = spelled.mid(1);
        return piece;
    }
    piece.continuation = spelled.startsWith(QStringLiteral("##")) && spelled.size() > 2;
    piece.text = piece.continuation ? spelled.mid(2) : spelled;
    return piece;
}

QString TokenPiece::label() const
{
    if (continuation && spelled.startsWith(QStringLiteral("##")))
        return spelled;  // an axis has no neighbouring chip to join: the ## says it
    return leading_space ? QChar(kSpaceMark) + text : text;
}

}  // namespace attn
