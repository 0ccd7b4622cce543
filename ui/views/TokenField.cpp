#include "ui/views/TokenField.h"

#include "core/lens/LogitMetric.h"
#include "core/model/ModelSession.h"
#include "core/text/TokenPiece.h"

#include <QComboBox>

namespace attn {

QString TokenField::label(const ModelSession& session, int id)
{
    return session.tokenLabels({session.tokenText(id)}).value(0);
}

void TokenField::fill(QComboBox& box, const ModelSession& session, const std::vector<int>& ids)
{
    const QString typed = box.currentText();
    box.clear();
    for (int id : ids)
        box.addItem(label(session, id), id);
    box.setEditText(typed);
}

Result<int> TokenField::read(const QComboBox& box, const ModelSession& session)
{
    const QString text = box.currentText().trimmed();
    const int item = box.findText(text, Qt::MatchExactly | Qt::MatchCaseSensitive);
    if (item >= 0 && box.itemData(item).isValid())
        return box.itemData(item).toInt();
    LogitMetric::TokenLookup lookup;
    if (const ModelTokenizer* tokenizer = session.tokenizer())
        lookup = [tokenizer](const QString& token) -> std::optional<int> {
            if (auto id = tokenizer->tokenId(token))
                return id;
            // A label as the window writes it: "␣dog" is " dog", when that is one token.
            if (!token.contains(QChar(TokenPiece::kSpaceMark)))
                return std::nullopt;
            QString spaced = token;
            spaced.replace(QChar(TokenPiece::kSpaceMark), QLatin1Char(' '));
            const std::vector<int> ids = tokenizer->encode(spaced);
            return ids.size() == 1 ? std::optional<int>(ids.front()) : std::nullopt;
        };
    return LogitMetric::parseToken(text, session.config().vocab_size, lookup);
}

}  // namespace attn
