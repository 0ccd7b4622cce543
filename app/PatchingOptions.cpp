#include "app/PatchingOptions.h"

#include "core/lens/ActivationPatching.h"
#include "core/model/TokenIdList.h"

#include <QCommandLineParser>

namespace attn {

const char* const PatchingCommandLine::kValued[] = {"patch-from", "patch-from-ids", "patch-site", nullptr};

Result<PatchingOptions> PatchingCommandLine::parse(const QCommandLineParser& parser, const HeadsOptions& heads)
{
    PatchingOptions options;
    for (const char* const* name = kValued; *name; ++name)
        if (parser.isSet(QLatin1String(*name)) && !parser.isSet("model"))
            return Error{
                QStringLiteral("--%1: only with --model (it patches a model's activations)").arg(QLatin1String(*name))};
    if (parser.isSet("patch-from") && parser.isSet("patch-from-ids"))
        return Error{QStringLiteral("--patch-from-ids: cannot be combined with --patch-from (one clean input)")};
    if (parser.isSet("patch-from")) {
        options.clean_sentence = parser.value("patch-from");
        if (options.clean_sentence.trimmed().isEmpty())
            return Error{QStringLiteral("--patch-from: the clean input is empty")};
    }
    if (parser.isSet("patch-from-ids")) {
        auto ids = TokenIdList::parse(parser.value("patch-from-ids"));
        if (!ids)
            return Error{QStringLiteral("--patch-from-ids: %1").arg(ids.error())};
        options.clean_ids = std::move(ids).value();
        options.clean_ids_given = true;
    }
    if (parser.isSet("patch-site")) {
        const auto site = ActivationPatching::siteNamed(parser.value("patch-site").trimmed());
        if (!site)
            return Error{QStringLiteral("--patch-site: expected resid, attn, mlp or heads, got '%1'")
                             .arg(parser.value("patch-site"))};
        if (!options.any())
            return Error{QStringLiteral("--patch-site: only with --patch-from or --patch-from-ids")};
        options.site = *site;
    }
    if (options.any() && heads.metric.isEmpty())
        return Error{QStringLiteral("%1: needs --metric TARGET[,FOIL] (the metric the patching normalises)")
                         .arg(options.option())};
    return options;
}

Status PatchingCommandLine::checkLength(const PatchingOptions& options, int clean_tokens, int main_tokens)
{
    if (clean_tokens == main_tokens)
        return {};
    return Error{QStringLiteral("%1: the clean input has %2 token%3, the main (corrupted) input %4; they must be "
                                "as many")
                     .arg(options.option())
                     .arg(clean_tokens)
                     .arg(clean_tokens == 1 ? QString() : QStringLiteral("s"))
                     .arg(main_tokens)};
}

}  // namespace attn
