#include "ui/export/DataExporter.h"

#include "core/io/NpyWriter.h"
#include "core/io/OutputPath.h"
#include "core/pipeline/AttentionResult.h"
#include "core/report/JsonReport.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include <cmath>
#include <memory>
#include <vector>

namespace attn {
namespace {

// RFC 4180: quote fields containing a comma, quote or line break; double inner quotes.
QString csvField(const QString& text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')) &&
        !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

}  // namespace

QByteArray DataExporter::toCsv(const AttentionResult& result)
{
    QString text = QStringLiteral("head,query,query_token,key,key_token,weight\n");
    const AttentionTrace& trace = result.trace;
    const TokenList& tokens = result.input.tokens;     // the queries
    const TokenList& key_tokens = result.keyTokens();  // the keys: the same tokens, or a second input
    for (int head = 0; head < trace.num_heads; ++head) {
        const std::shared_ptr<const Matrix> head_weights = trace.headWeights(head);
        const Matrix& weights = *head_weights;  // (query_len, key_len)
        for (int query = 0; query < weights.rows(); ++query)
            for (int key = 0; key < weights.cols(); ++key)
                text += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
                            .arg(head)
                            .arg(query)
                            .arg(csvField(tokens[query].text))
                            .arg(key)
                            .arg(csvField(key_tokens[key].text))
                            .arg(double(weights(query, key)), 0, 'g', 9);
    }
    return text.toUtf8();
}

QByteArray DataExporter::toJson(const AttentionResult& result, int trace_head)
{
    return JsonReport::build(result, trace_head >= 0, trace_head);
}

QByteArray DataExporter::matrixCsv(const Matrix& matrix)
{
    QByteArray text;
    for (int row = 0; row < matrix.rows(); ++row) {
        for (int column = 0; column < matrix.cols(); ++column) {
            if (column > 0)
                text += ',';
            const float value = matrix(row, column);
            if (std::isinf(value))
                text += value < 0 ? "-inf" : "inf";
            else if (std::isnan(value))
                text += "nan";
            else
                text += QByteArray::number(double(value), 'g', 9);
        }
        text += '\n';
    }
    return text;
}

QList<QPair<QString, QByteArray>> DataExporter::traceFiles(const AttentionResult& result, const QString& path, int head)
{
    const TraceData trace = TraceData::of(result, head);
    const QFileInfo info(path);
    const QString suffix = info.suffix().toLower();
    const QString stem = info.dir().filePath(info.completeBaseName());
    QList<QPair<QString, const Matrix*>> arrays = {{QStringLiteral("x"), &trace.x}};
    if (trace.kv_x.size() > 0)
        arrays.append({QStringLiteral("kv_x"), &trace.kv_x});
    arrays.append({QStringLiteral("q"), &trace.q.front()});
    arrays.append({QStringLiteral("k"), &trace.k.front()});
    arrays.append({QStringLiteral("v"), &trace.v.front()});
    arrays.append({QStringLiteral("scores"), &trace.scores.front()});
    QList<QPair<QString, QByteArray>> files;
    for (const auto& [name, matrix] : arrays)
        files.append({QStringLiteral("%1.%2.%3").arg(stem, name, suffix),
                      suffix == u"csv" ? matrixCsv(*matrix) : NpyWriter::encode(*matrix)});
    return files;
}

QByteArray DataExporter::toNpy(const AttentionResult& result)
{
    auto bytes = NpyWriter::encode(result.trace.weights);  // (num_heads, query_len, key_len)
    return bytes ? bytes.value() : QByteArray();
}

Status DataExporter::exportWeights(const AttentionResult& result, const QString& path, int trace_head)
{
    if (Status where = OutputPath::check(path, {QStringLiteral("csv"), QStringLiteral("json"), QStringLiteral("npy")});
        !where)
        return where;
    if (trace_head >= result.numHeads())
        return Error{
            QStringLiteral("%1: head %2 is out of range (%3 heads)").arg(path).arg(trace_head).arg(result.numHeads())};
    if (!result.trace.keepsEveryHead())
        return Error{QStringLiteral("%1: at %2 tokens the window keeps the weights of one head of %3 and recomputes "
                                    "the others when shown; exporting every head's weights is not supported at "
                                    "this length (export a picture, or use the command line)")
                         .arg(path)
                         .arg(result.seqLen())
                         .arg(result.numHeads())};
    const QString suffix = QFileInfo(path).suffix().toLower();
    QList<QPair<QString, QByteArray>> files;
    if (suffix == u"csv")
        files.append({path, toCsv(result)});
    else if (suffix == u"json")
        files.append({path, toJson(result, trace_head)});
    else
        files.append({path, toNpy(result)});
    if (files.front().second.isEmpty())
        return Error{QStringLiteral("%1: there are no attention weights to write").arg(path)};
    if (trace_head >= 0 && suffix != u"json")
        files += traceFiles(result, path, trace_head);
    // Every file is prepared beside its target first and renamed into place only when all are
    // written, so a failure leaves none of them behind.
    std::vector<std::unique_ptr<QSaveFile>> saves;
    for (const auto& [name, bytes] : files) {
        auto file = std::make_unique<QSaveFile>(name);
        if (!file->open(QIODevice::WriteOnly) || file->write(bytes) != bytes.size()) {
            const QString reason = file->errorString();
            file->cancelWriting();
            return Error{QStringLiteral("%1: cannot write: %2").arg(name, reason)};
        }
        saves.push_back(std::move(file));
    }
    for (auto& file : saves)
        if (!file->commit())
            return Error{QStringLiteral("%1: cannot write: %2").arg(file->fileName(), file->errorString())};
    return {};
}

}  // namespace attn
