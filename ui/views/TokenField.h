#pragma once

#include "core/base/Result.h"

#include <QString>

#include <vector>

class QComboBox;

namespace attn {

class ModelSession;

// A view's field for one token of the model's vocabulary (the Lens's tracked token, the
// Attribution's target and foil): its items are labelled as the window labels tokens ("␣cat",
// ModelSession::tokenLabels), each holding its id. What is typed may be one of those labels, an
// id, the vocabulary's own spelling ("Ġcat"), or a label of a token that is not listed ("␣dog",
// one token when the tokenizer reads " dog").
class TokenField {
public:
    static QString label(const ModelSession& session, int id);
    // The items of `box` become `ids`, labelled; the text being typed stays as it is.
    static void fill(QComboBox& box, const ModelSession& session, const std::vector<int>& ids);
    // The token in `box` (its text trimmed; empty: none); an error names the text.
    static Result<int> read(const QComboBox& box, const ModelSession& session);
};

}  // namespace attn
