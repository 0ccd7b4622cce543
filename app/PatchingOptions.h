#pragma once

#include "app/HeadsOptions.h"
#include "core/base/Result.h"
#include "core/model/ForwardIntervention.h"

#include <QString>

#include <vector>

class QCommandLineParser;

namespace attn {

// Activation patching, with --model and --metric (docs/command-line.md): the clean input as
// --patch-from TEXT (through the folder's tokenizer once it is open) or --patch-from-ids 1,2,3,
// and the site, --patch-site resid|attn|mlp|heads (default resid). The main input is the
// corrupted one.
struct PatchingOptions {
    QString clean_sentence;      // --patch-from; empty: not given
    std::vector<int> clean_ids;  // --patch-from-ids
    bool clean_ids_given = false;
    InterventionSite site = InterventionSite::Residual;

    bool any() const { return !clean_sentence.isEmpty() || clean_ids_given; }
    // The option the clean input came with, for messages.
    QString option() const
    {
        return clean_ids_given ? QStringLiteral("--patch-from-ids") : QStringLiteral("--patch-from");
    }
};

class PatchingCommandLine {
public:
    static const char* const kValued[];
    // Checks what needs no model folder: --model, --metric, one clean input, its ids, the site.
    static Result<PatchingOptions> parse(const QCommandLineParser& parser, const HeadsOptions& heads);
    // The clean input's token count against the main input's, before any pass:
    // "--patch-from: the clean input has 9 tokens, the main (corrupted) input 12; ...".
    static Status checkLength(const PatchingOptions& options, int clean_tokens, int main_tokens);
};

}  // namespace attn
