#include "HeadlessRunner.h"

#include "AttentionPipeline.h"
#include "JsonReport.h"

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
    return Error{QStringLiteral("--input %1: reading .npy input is not available in this build").arg(options.input_path)};
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
    const int num_heads = result->numHeads();
    if (options.head >= num_heads)
        return fail(QStringLiteral("--head %1: out of range, the model has heads 0 to %2").arg(options.head).arg(num_heads - 1));

    if (!options.export_path.isEmpty())
        return fail(QStringLiteral("--export %1: exporting pictures is not available in this build").arg(options.export_path));

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
