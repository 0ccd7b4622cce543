#include "app/GenerationOptions.h"

#include "core/model/EndOfSequence.h"

#include <QCommandLineParser>

#include <cmath>
#include <limits>

namespace attn {

const char* const GenerationCommandLine::kValued[] = {"generate",     "temperature",  "sample-seed",
                                                      "sample-top-k", "sample-top-p", nullptr};

Result<GenerationOptions> GenerationCommandLine::parse(const QCommandLineParser& parser)
{
    GenerationOptions options;
    for (const char* const* name = kValued; *name; ++name) {
        if (!parser.isSet(QLatin1String(*name)))
            continue;
        if (!parser.isSet("model"))
            return Error{QStringLiteral("--%1: only with --model (a causal model generates the tokens)")
                             .arg(QLatin1String(*name))};
        if (qstrcmp(*name, "generate") != 0 && !parser.isSet("generate"))
            return Error{QStringLiteral("--%1: only with --generate N").arg(QLatin1String(*name))};
    }
    if (!parser.isSet("generate"))
        return options;
    if (!parser.isSet("json") && !parser.isSet("export") && !parser.isSet("save-session"))
        return Error{QStringLiteral("--generate: only with --json, --export or --save-session (in the window: the Generate tab)")};
    const auto text = [&parser](const char* name) { return parser.value(QLatin1String(name)).trimmed(); };

    bool ok = false;
    const qlonglong count = text("generate").toLongLong(&ok);
    if (!ok || count < 1 || count > GenerationRequest::kMaxNewTokens)
        return Error{QStringLiteral("--generate: expected a number of tokens from 1 to %1, got '%2'")
                         .arg(GenerationRequest::kMaxNewTokens)
                         .arg(parser.value("generate"))};
    options.max_new_tokens = int(count);

    SamplingSettings& sampling = options.sampling;
    sampling.sample = parser.isSet("temperature") || parser.isSet("sample-seed") || parser.isSet("sample-top-k") ||
                      parser.isSet("sample-top-p");
    if (parser.isSet("temperature")) {
        sampling.temperature = text("temperature").toDouble(&ok);
        if (!ok || !std::isfinite(sampling.temperature) || sampling.temperature <= 0.0)
            return Error{QStringLiteral("--temperature: expected a finite number above 0, got '%1'")
                             .arg(parser.value("temperature"))};
    }
    if (parser.isSet("sample-seed")) {
        const QString seed = text("sample-seed");
        sampling.seed = seed.toULongLong(&ok);
        if (!ok || seed.startsWith(u'-') || seed.startsWith(u'+'))
            return Error{QStringLiteral("--sample-seed: expected a non-negative integer (below 2^64), got '%1'")
                             .arg(parser.value("sample-seed"))};
    }
    if (parser.isSet("sample-top-k")) {
        const qlonglong k = text("sample-top-k").toLongLong(&ok);
        if (!ok || k < 1 || k > std::numeric_limits<int>::max())
            return Error{QStringLiteral("--sample-top-k: expected a positive integer, got '%1'")
                             .arg(parser.value("sample-top-k"))};
        sampling.top_k = int(k);
    }
    if (parser.isSet("sample-top-p")) {
        sampling.top_p = text("sample-top-p").toDouble(&ok);
        if (!ok || !(sampling.top_p > 0.0 && sampling.top_p <= 1.0))
            return Error{QStringLiteral("--sample-top-p: expected a number above 0 and at most 1, got '%1'")
                             .arg(parser.value("sample-top-p"))};
    }
    return options;
}

Result<std::unique_ptr<TokenGeneration>> GenerationCommandLine::run(const GenerationOptions& options,
                                                                    const ModelSession& session,
                                                                    const std::vector<int>& prompt, int selected_layer,
                                                                    bool keep_residual_stream)
{
    const QString option = QStringLiteral("--generate %1").arg(options.max_new_tokens);
    auto eos = EndOfSequence::read(session.dir());
    if (!eos)
        return Error{QStringLiteral("--model %1: %2").arg(session.dir(), eos.error())};
    GenerationRequest request;
    request.max_new_tokens = options.max_new_tokens;
    request.sampling = options.sampling;
    request.eos_ids = std::move(eos).value();
    request.selected_layer = selected_layer;
    request.keep_residual_stream = keep_residual_stream;
    if (Status s = TokenGeneration::plan(session.model(), prompt, request); !s)
        return Error{QStringLiteral("%1: %2").arg(option, s.error())};
    auto generation = TokenGeneration::start(session.model(), prompt, request);
    if (!generation)
        return Error{QStringLiteral("%1: %2").arg(option, generation.error())};
    if (Status s = (*generation)->generate(); !s)
        return Error{QStringLiteral("%1: %2").arg(option, s.error())};
    return generation;
}

}  // namespace attn
