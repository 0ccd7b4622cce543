#include "app/ExportOptions.h"

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"

namespace attn {

ExportRequest ExportOptions::request(const CommandLineOptions& options)
{
    ExportRequest request;
    request.path = options.export_path;
    request.view = options.view;
    request.model_chain = options.model_chain;
    request.head = options.head;
    request.compare_a = options.compare_a;
    request.compare_b = options.compare_b;
    request.batch = options.batch;
    request.size = options.size;
    request.color_scale = options.color_scale;
    request.hidden_keys = options.hidden_tokens;
    request.top_mass = options.top_mass;
    request.aggregate = options.aggregate;
    request.mark_heads = options.mark_heads;
    request.sort_heads = options.sort_heads;
    request.reduction = options.reduction;
    request.rollout = {options.rollout_fusion, options.residual_weight, -1};
    return request;
}

Status ExportOptions::checkHeads(const CommandLineOptions& options, int num_heads)
{
    if (Status s = HeadIndex::check(options.head, num_heads); !s)
        return Error{QStringLiteral("--head %1: %2").arg(options.head).arg(s.error())};
    // The compared heads matter to a compare picture, and to the window's Compare tab when given.
    const bool compares =
        options.headless() ? !options.export_path.isEmpty() && options.view == View::Compare : options.compare_given;
    if (compares)
        for (int head : {options.compare_a, options.compare_b})
            if (Status s = HeadIndex::check(head, num_heads); !s)
                return Error{
                    QStringLiteral("--compare %1,%2: %3").arg(options.compare_a).arg(options.compare_b).arg(s.error())};
    return {};
}

Status ExportOptions::exportResult(const CommandLineOptions& options, const AttentionResult& result)
{
    // Every view through the one picture writer, as the window's File › Export image.
    const ViewRow& row = ViewRegistry::row(options.view);
    if (!row.picture || row.source != ViewSource::Result)
        return Error{QStringLiteral("--view %1: this view cannot be exported").arg(viewKey(options.view))};
    return ViewExporter::exportView(result, request(options));
}

}  // namespace attn
