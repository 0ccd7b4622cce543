#include "app/ExportOptions.h"

#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/HeadIndex.h"

namespace attn {
namespace {

// The picture writer's name for a view that draws one result or a whole model's run.
std::optional<ExportView> exportViewOf(View view)
{
    switch (view) {
        case View::Grid:
            return ExportView::Grid;
        case View::Head:
            return ExportView::Head;
        case View::Compare:  // two heads and their difference
            return ExportView::Compare;
        case View::Lines:
            return ExportView::Lines;
        case View::Shapes:  // batch size B drawn, --head highlighted
            return ExportView::Shapes;
        case View::QueryKey:  // the queries and keys of --head
            return ExportView::QueryKey;
        case View::Model:  // needs --model: every layer x head
            return ExportView::Model;
        case View::Walkthrough:  // refused by CommandLine::parse
        case View::Rollout:      // needs --model: drawn from the run, not by ExportView
            return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace

ExportRequest ExportOptions::request(const CommandLineOptions& options)
{
    ExportRequest request;
    request.path = options.export_path;
    request.view = exportViewOf(options.view).value_or(ExportView::Grid);
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
    const std::optional<ExportView> view = exportViewOf(options.view);
    if (!view || *view == ExportView::Model)
        return Error{QStringLiteral("--view %1: this view cannot be exported").arg(viewKey(options.view))};
    return ViewExporter::exportView(result, request(options));
}

}  // namespace attn
