#include "app/HeadlessRunner.h"

#include "core/io/NpyReader.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/HeadIndex.h"
#include "core/report/JsonReport.h"
#include "ui/export/ViewExporter.h"

#include <QFile>
#include <QSaveFile>

namespace attn {
namespace {

Status writeAtomically(const QString& path, const QByteArray& data)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    if (file.write(data) != data.size() || !file.commit())
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    return {};
}

}  // namespace

Status HeadlessRunner::checkHeads(const CommandLineOptions& options, int num_heads)
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

Status HeadlessRunner::exportView(const CommandLineOptions& options, const AttentionResult& result)
{
    // Every view through the one picture writer, as the window's File › Export image.
    ExportRequest request;
    switch (options.view) {
        case View::Grid:
            request.view = ExportView::Grid;
            break;
        case View::Head:
            request.view = ExportView::Head;
            break;
        case View::Compare:  // two heads and their difference
            request.view = ExportView::Compare;
            break;
        case View::Lines:
            request.view = ExportView::Lines;
            break;
        case View::Shapes:  // batch size B drawn, --head highlighted
            request.view = ExportView::Shapes;
            break;
        case View::Walkthrough:  // refused by CommandLine::parse
            return Error{QStringLiteral("--view %1: this view cannot be exported").arg(viewKey(options.view))};
    }
    request.path = options.export_path;
    request.head = options.head;
    request.compare_a = options.compare_a;
    request.compare_b = options.compare_b;
    request.batch = options.batch;
    request.size = options.size;
    return ViewExporter::exportView(result, request);
}

Result<AttentionResult> HeadlessRunner::compute(const CommandLineOptions& options, TraceDetail detail)
{
    if (options.input_path.isEmpty())
        return AttentionPipeline::run(options.config, options.sentence, detail);

    // --input: the rows are given, so there are no embeddings and no positional encoding.
    auto x = NpyReader::readMatrixFile(options.input_path);
    if (!x)
        return Error{QStringLiteral("--input %1").arg(x.error())};
    auto input = AttentionPipeline::inputFromMatrix(std::move(x).value(), options.token_labels);
    if (!input)
        return Error{QStringLiteral("--input %1: %2").arg(options.input_path, input.error())};
    RunSettings config = options.config;
    config.positional_encoding = false;
    if (config.input_dim == 0)
        config.input_dim = int(input->x.cols());
    auto weights = AttentionPipeline::buildWeights(config);
    if (!weights)
        return Error{weights.error()};
    if (weights->weights.inputDim() != input->x.cols())
        return Error{QStringLiteral("--input %1: the rows have %2 columns, the weights expect %3")
                         .arg(options.input_path)
                         .arg(input->x.cols())
                         .arg(weights->weights.inputDim())};
    return AttentionPipeline::run(config, std::move(input).value(), weights.value(), detail);
}

int HeadlessRunner::run(const CommandLineOptions& options, QTextStream& out, QTextStream& err)
{
    auto fail = [&](const QString& message) {
        err << "error: " << message << '\n';
        err.flush();
        return 1;
    };

    auto result = compute(options, TraceDetail::Weights);
    if (!result)
        return fail(result.error());
    if (Status s = checkHeads(options, result->numHeads()); !s)
        return fail(s.error());
    if (!options.export_path.isEmpty())
        if (Status s = exportView(options, *result); !s)
            return fail(QStringLiteral("--export %1").arg(s.error()));

    if (!options.json_path.isEmpty()) {
        const QByteArray json = JsonReport::build(*result);
        if (options.json_path == u"-") {
            out.flush();
            QFile stdoutFile;
            if (!stdoutFile.open(stdout, QIODevice::WriteOnly) || stdoutFile.write(json) != json.size())
                return fail(QStringLiteral("--json -: cannot write to standard output"));
        } else if (Status s = writeAtomically(options.json_path, json); !s) {
            return fail(QStringLiteral("--json %1").arg(s.error()));
        }
    }
    return 0;
}

}  // namespace attn
