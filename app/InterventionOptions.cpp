#include "app/InterventionOptions.h"

#include <QCommandLineParser>
#include <QRegularExpression>

namespace attn {

const char* const InterventionCommandLine::kValued[] = {"ablate", "ablation", nullptr};
const char* const InterventionCommandLine::kFlags[] = {"ablation-scan", nullptr};

Result<InterventionOptions> InterventionCommandLine::parse(const QCommandLineParser& parser, const HeadsOptions& heads)
{
    InterventionOptions options;
    for (const char* const* names : {kValued, kFlags})
        for (const char* const* name = names; *name; ++name)
            if (parser.isSet(QLatin1String(*name)) && !parser.isSet("model"))
                return Error{QStringLiteral("--%1: only with --model (it changes a whole model's forward pass)")
                                 .arg(QLatin1String(*name))};
    if (parser.isSet("ablate")) {
        const QString text = parser.value("ablate");
        static const QRegularExpression pair(QStringLiteral("^\\s*(\\d{1,9})\\s*:\\s*(\\d{1,9})\\s*$"));
        for (const QString& item : text.split(u',')) {
            const QRegularExpressionMatch match = pair.match(item);
            if (!match.hasMatch())
                return Error{QStringLiteral("--ablate: expected LAYER:HEAD[,LAYER:HEAD...] with 0-based numbers, "
                                            "got '%1'")
                                 .arg(text)};
            const std::pair<int, int> head{match.captured(1).toInt(), match.captured(2).toInt()};
            if (std::find(options.ablate.begin(), options.ablate.end(), head) == options.ablate.end())
                options.ablate.push_back(head);
        }
    }
    if (parser.isSet("ablation")) {
        const QString mode = parser.value("ablation").trimmed();
        if (mode != u"zero" && mode != u"mean")
            return Error{QStringLiteral("--ablation: expected zero or mean, got '%1'").arg(parser.value("ablation"))};
        options.mode = mode == u"mean" ? HeadAblation::Mean : HeadAblation::Zero;
    }
    options.scan = parser.isSet("ablation-scan");
    if (options.scan && heads.metric.isEmpty())
        return Error{
            QStringLiteral("--ablation-scan: needs --metric TARGET[,FOIL] (the number each ablation changes)")};
    return options;
}

Status InterventionCommandLine::checkRange(const InterventionOptions& options, int num_layers, int num_heads)
{
    for (const auto& [layer, head] : options.ablate) {
        if (layer >= num_layers)
            return Error{QStringLiteral("--ablate %1:%2: layer %1 is out of range, the model has layers 0 to %3")
                             .arg(layer)
                             .arg(head)
                             .arg(num_layers - 1)};
        if (head >= num_heads)
            return Error{QStringLiteral("--ablate %1:%2: head %2 is out of range, the model has heads 0 to %3")
                             .arg(layer)
                             .arg(head)
                             .arg(num_heads - 1)};
    }
    return {};
}

}  // namespace attn
