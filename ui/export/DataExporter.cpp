#include "ui/export/DataExporter.h"

#include "core/io/NpyWriter.h"
#include "core/io/OutputPath.h"
#include "core/pipeline/AttentionResult.h"
#include "core/report/JsonReport.h"

#include <QFileInfo>
#include <QSaveFile>

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
        const Matrix& weights = trace.weights[head];  // (query_len, key_len)
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

QByteArray DataExporter::toJson(const AttentionResult& result)
{
    return JsonReport::build(result);
}

QByteArray DataExporter::toNpy(const AttentionResult& result)
{
    auto bytes = NpyWriter::encode(result.trace.weights);  // (num_heads, query_len, key_len)
    return bytes ? bytes.value() : QByteArray();
}

Status DataExporter::exportWeights(const AttentionResult& result, const QString& path)
{
    if (Status where = OutputPath::check(path, {QStringLiteral("csv"), QStringLiteral("json"), QStringLiteral("npy")});
        !where)
        return where;
    const QString suffix = QFileInfo(path).suffix().toLower();
    QByteArray bytes;
    if (suffix == u"csv")
        bytes = toCsv(result);
    else if (suffix == u"json")
        bytes = toJson(result);
    else
        bytes = toNpy(result);
    if (bytes.isEmpty())
        return Error{QStringLiteral("%1: there are no attention weights to write").arg(path)};
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    if (file.write(bytes) != bytes.size()) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, reason)};
    }
    if (!file.commit())
        return Error{QStringLiteral("%1: cannot write: %2").arg(path, file.errorString())};
    return {};
}

}  // namespace attn
