#include "app/HeadlessRunner.h"

#include "app/ModelCommand.h"
#include "core/io/NpyReader.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/report/JsonReport.h"
#include "ui/export/CompareExport.h"
#include "ui/export/ViewExporter.h"
#include "ui/views/shapes/ShapeDiagramExport.h"

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

Status HeadlessRunner::exportPicture(const AttentionResult& result, const CommandLineOptions& options)
{
    if (options.export_path.isEmpty())
        return {};
    const int num_heads = result.numHeads();
    if (options.view == u"compare" || options.view == u"lines") {
        // Compare heads: two heads and their difference, or the lines view of --head.
        if (options.view == u"compare") {
            for (int head : {options.compare_a, options.compare_b})
                if (head < 0 || head >= num_heads)
                    return Error{QStringLiteral("--compare %1,%2: head %3 is out of range, the model has heads 0 to %4")
                                     .arg(options.compare_a)
                                     .arg(options.compare_b)
                                     .arg(head)
                                     .arg(num_heads - 1)};
        }
        const Status s = options.view == u"compare"
                             ? CompareExport::exportCompare(result, options.compare_a, options.compare_b,
                                                            options.export_path, options.size)
                             : CompareExport::exportLines(result, options.head, options.export_path, options.size);
        if (!s)
            return Error{QStringLiteral("--export %1").arg(s.error())};
    } else if (options.view == u"shapes") {
        // The shape diagram of this configuration, batch size B drawn, --head highlighted.
        if (Status s =
                ShapeDiagramExport::exportTo(result, options.batch, options.head, options.export_path, options.size);
            !s)
            return Error{QStringLiteral("--export %1").arg(s.error())};
    } else {
        auto view = ViewExporter::parseView(options.view);
        if (!view)
            return Error{view.error()};
        ExportRequest request;
        request.path = options.export_path;
        request.view = view.value();
        request.head = options.head;
        request.size = options.size;
        if (Status s = ViewExporter::exportView(result, request); !s)
            return Error{QStringLiteral("--export %1").arg(s.error())};
    }
    return {};
}

Status HeadlessRunner::writeOutput(const QString& path, const QByteArray& data)
{
    if (path == u"-") {
        QFile stdoutFile;
        if (!stdoutFile.open(stdout, QIODevice::WriteOnly) || stdoutFile.write(data) != data.size())
            return Error{QStringLiteral("-: cannot write to standard output")};
        return {};
    }
    return writeAtomically(path, data);
}

int HeadlessRunner::run(const CommandLineOptions& options, QTextStream& out, QTextStream& err)
{
    auto fail = [&](const QString& message) {
        err << "error: " << message << '\n';
        err.flush();
        return 1;
    };
    if (!options.model_dir.isEmpty())
        return ModelCommand::run(options, out, err);

    auto result = compute(options, TraceDetail::Weights);
    if (!result)
        return fail(result.error());
    const int num_heads = result->numHeads();
    if (options.head >= num_heads)
        return fail(QStringLiteral("--head %1: out of range, the model has heads 0 to %2")
                        .arg(options.head)
                        .arg(num_heads - 1));
    if (Status s = exportPicture(*result, options); !s)
        return fail(s.error());

    if (!options.json_path.isEmpty()) {
        const QByteArray json = JsonReport::build(*result);
        out.flush();
        if (Status s = writeOutput(options.json_path, json); !s)
            return fail(QStringLiteral("--json %1").arg(s.error()));
    }
    return 0;
}

}  // namespace attn
