#pragma once

#include "core/base/Result.h"

#include <QString>

#include <optional>

class QCommandLineParser;

namespace attn {

// What heads do, with --model (docs/command-line.md): --metric TARGET[,FOIL] as typed (its tokens
// are looked up in the model's vocabulary once the folder is open), --position P (default: the
// last token), --logit-lens with --top-k K, --attribution; --attention-kind weights|norms (every
// mode).
struct HeadsOptions {
    QString metric;  // empty: no --metric
    std::optional<int> position;
    bool logit_lens = false;
    int top_k = 5;
    bool attribution = false;
    // --attention-kind weights|norms: norms adds "attention_norms" (value-weighted attention).
    bool attention_norms = false;

    bool any() const { return !metric.isEmpty() || logit_lens || attribution; }
};

class HeadsCommandLine {
public:
    // The options' names: valued ones take a value.
    static const char* const kValued[];
    static const char* const kFlags[];
    // Checks what needs no model folder: numbers, --attribution without --metric, any of them
    // but --attention-kind without --model, an unknown --attention-kind.
    static Result<HeadsOptions> parse(const QCommandLineParser& parser);
};

}  // namespace attn
