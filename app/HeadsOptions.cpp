#include "app/HeadsOptions.h"

#include "core/lens/LogitLens.h"

#include <QCommandLineParser>

#include <limits>

namespace attn {

const char* const HeadsCommandLine::kValued[] = {"metric", "position", "top-k", "attention-kind", nullptr};
const char* const HeadsCommandLine::kFlags[] = {"logit-lens", "attribution", nullptr};

Result<HeadsOptions> HeadsCommandLine::parse(const QCommandLineParser& parser)
{
    HeadsOptions options;
    for (const char* const* names : {kValued, kFlags})
        for (const char* const* name = names; *name; ++name)
            if (parser.isSet(QLatin1String(*name)) && !parser.isSet("model") && qstrcmp(*name, "attention-kind") != 0)
                return Error{QStringLiteral("--%1: only with --model (it reads the model's prediction head)")
                                 .arg(QLatin1String(*name))};
    if (parser.isSet("metric")) {
        options.metric = parser.value("metric");
        if (options.metric.isEmpty())
            return Error{QStringLiteral("--metric: expected TARGET or TARGET,FOIL, got an empty value")};
    }
    if (parser.isSet("position")) {
        bool ok = false;
        const QString text = parser.value("position").trimmed();
        const qlonglong value = text.toLongLong(&ok);
        if (!ok || value < 0 || value > std::numeric_limits<int>::max())
            return Error{QStringLiteral("--position: expected a 0-based token position, got '%1'")
                             .arg(parser.value("position"))};
        options.position = int(value);
    }
    if (parser.isSet("top-k")) {
        bool ok = false;
        const qlonglong value = parser.value("top-k").trimmed().toLongLong(&ok);
        if (!ok || value < 1 || value > LogitLens::kMaxTopK)
            return Error{QStringLiteral("--top-k: expected an integer from 1 to %1, got '%2'")
                             .arg(LogitLens::kMaxTopK)
                             .arg(parser.value("top-k"))};
        options.top_k = int(value);
    }
    if (parser.isSet("attention-kind")) {
        const QString kind = parser.value("attention-kind").trimmed();
        if (kind != u"weights" && kind != u"norms")
            return Error{QStringLiteral("--attention-kind: expected weights or norms, got '%1'")
                             .arg(parser.value("attention-kind"))};
        options.attention_norms = kind == u"norms";
    }
    options.logit_lens = parser.isSet("logit-lens");
    options.attribution = parser.isSet("attribution");
    if (options.attribution && options.metric.isEmpty())
        return Error{QStringLiteral("--attribution: needs --metric TARGET[,FOIL] (the logit it splits into parts)")};
    return options;
}

}  // namespace attn
