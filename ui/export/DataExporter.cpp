#include "ui/export/DataExporter.h"

#include "core/attention/HeadRecomputer.h"
#include "core/io/NpyWriter.h"
#include "core/io/OutputChunk.h"
#include "core/io/OutputPath.h"
#include "core/pipeline/AttentionResult.h"
#include "core/report/JsonReport.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QSaveFile>
#include <QStorageInfo>

#include <cmath>
#include <cstdint>
#include <functional>
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

// The weights' CSV lines, written to `out` a chunk at a time (the text of a long input's heads is
// gigabytes): head,query,query_token,key,key_token,weight, after a layer column when the result
// is one layer of several (a whole model, a multi-layer file), so files of two layers can be joined.
bool writeCsv(const AttentionResult& result, QIODevice& out)
{
    const bool layered = result.layer_count > 1;
    const QByteArray layer_field = layered ? QByteArray::number(result.config.layer) + ',' : QByteArray();
    QByteArray chunk = (layered ? "layer," : "") + QByteArray("head,query,query_token,key,key_token,weight\n");
    std::vector<QByteArray> queries;  // each "query,query_token," once
    std::vector<QByteArray> keys;     // each "key,key_token," once
    for (int query = 0; query < result.seqLen(); ++query)
        queries.push_back(QByteArray::number(query) + ',' + csvField(result.input.tokens[query].text).toUtf8() + ',');
    const TokenList& key_tokens = result.keyTokens();  // the same tokens, or a second input
    for (int key = 0; key < result.keyLen(); ++key)
        keys.push_back(QByteArray::number(key) + ',' + csvField(key_tokens[key].text).toUtf8() + ',');
    return forEachHeadRows(result.trace, [&](int head, int first, const ConstBlockRef& rows) {
        const QByteArray head_field = layer_field + QByteArray::number(head) + ',';
        for (int i = 0; i < int(rows.rows()); ++i)
            for (int key = 0; key < int(rows.cols()); ++key) {
                chunk += head_field;
                chunk += queries[size_t(first + i)];
                chunk += keys[size_t(key)];
                chunk += QByteArray::number(double(rows(i, key)), 'g', 9);
                chunk += '\n';
                if (!OutputChunk::flushWhenFull(chunk, out))
                    return false;
            }
        return true;
    }) && OutputChunk::flush(chunk, out);
}

// (num_heads, query_len, key_len) float32 as numpy.save writes it, a chunk at a time.
bool writeNpy(const AttentionResult& result, QIODevice& out)
{
    const AttentionTrace& trace = result.trace;
    QByteArray chunk = NpyWriter::header({trace.num_heads, trace.queryLength(), trace.keyLength()});
    return forEachHeadRows(trace, [&](int, int, const ConstBlockRef& rows) {
        for (int i = 0; i < int(rows.rows()); ++i) {
            NpyWriter::appendValues(chunk, rows.row(i).data(), rows.cols());
            if (!OutputChunk::flushWhenFull(chunk, out))
                return false;
        }
        return true;
    }) && OutputChunk::flush(chunk, out);
}

QString sizeText(double bytes)
{
    return QLocale::c().formattedDataSize(std::int64_t(bytes), 1, QLocale::DataSizeSIFormat);
}

}  // namespace

double DataExporter::jsonBytesAtMost(const AttentionResult& result, int trace_head)
{
    // Each number at its longest: a weight (never negative) "1.23456789e-38," 15 bytes, any float
    // 16, a double with its key and indent 48, an integer 12; each row's "[],"; the text of the
    // tokens and the weights' description escaped at six bytes a byte (a control byte's escape)
    // with quotes and comma; 4 kB for the rest.
    const AttentionTrace& trace = result.trace;
    const double heads = trace.num_heads;
    const double queries = trace.queryLength();
    const double keys = trace.keyLength();
    double floats = double(trace.output.size());
    double rows = heads * queries + queries;
    if (trace_head >= 0) {  // x (and the keys' x), one head's q, k, v and scores
        floats += double(result.input.x.size()) + double(result.isCross() ? result.kv_input.x.size() : 0) +
                  trace.head_dim * (queries + 2 * keys) + queries * keys;
        rows += 3 * queries + 3 * keys;
    }
    const double doubles = heads * heads + 5 * heads + 1;  // head_similarity, head_metrics, scale
    const double integers = queries + keys + 32;           // empty_rows, pad_keys, config, shapes
    double text = 6.0 * double(result.weights_description.toUtf8().size());
    for (const TokenList* tokens : {&result.input.tokens, &result.kv_input.tokens})
        for (const Token& token : *tokens)
            text += 6.0 * double(token.text.toUtf8().size()) + 3;
    return 15 * heads * queries * keys + 16 * floats + 3 * rows + 48 * doubles + 12 * integers + text + 4096;
}

QByteArray DataExporter::toCsv(const AttentionResult& result)
{
    QByteArray text;
    QBuffer buffer(&text);
    buffer.open(QIODevice::WriteOnly);
    writeCsv(result, buffer);
    return text;
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
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    writeNpy(result, buffer);
    return bytes;
}

Status DataExporter::exportWeights(const AttentionResult& result, const QString& path, int trace_head)
{
    if (Status where = OutputPath::check(path, {QStringLiteral("csv"), QStringLiteral("json"), QStringLiteral("npy")});
        !where)
        return where;
    if (trace_head >= result.numHeads())
        return Error{
            QStringLiteral("%1: head %2 is out of range (%3 heads)").arg(path).arg(trace_head).arg(result.numHeads())};
    const QString suffix = QFileInfo(path).suffix().toLower();
    const AttentionTrace& trace = result.trace;
    const double weights = double(trace.num_heads) * trace.queryLength() * trace.keyLength();
    if (weights == 0.0)
        return Error{QStringLiteral("%1: there are no attention weights to write").arg(path)};
    // The file's size before it is written: refused when it is text nobody can open, or when it
    // does not fit where it goes.
    double average_token = 0.0;
    for (const Token& token : result.input.tokens)
        average_token += double(token.text.toUtf8().size()) / double(result.seqLen());
    const double csv_bytes = weights * (2 * average_token + 2 * std::log10(double(result.seqLen()) + 1) + 18);
    const double npy_bytes = 4.0 * weights + 128;
    const double bytes =
        suffix == u"csv" ? csv_bytes : suffix == u"json" ? jsonBytesAtMost(result, trace_head) : npy_bytes;
    if (suffix != u"npy" && weights > double(kMaxTextWeights))
        return Error{QStringLiteral("%1: %2 weights would be about %3 of %4 text: export .npy (%5) instead")
                         .arg(path, QLocale(QLocale::English).toString(std::int64_t(weights)), sizeText(bytes),
                              suffix.toUpper(), sizeText(npy_bytes))};
    const QStorageInfo storage(QFileInfo(path).absolutePath());
    if (storage.isValid() && storage.bytesAvailable() >= 0 && bytes > double(storage.bytesAvailable()))
        return Error{QStringLiteral("%1: needs about %2 and %3 is free there")
                         .arg(path, sizeText(bytes), sizeText(double(storage.bytesAvailable())))};

    QList<QPair<QString, QByteArray>> sidecars;
    if (trace_head >= 0 && suffix != u"json")
        sidecars = traceFiles(result, path, trace_head);
    // Every file is prepared beside its target first and renamed into place only when all are
    // written, so a failure leaves none of them behind.
    std::vector<std::unique_ptr<QSaveFile>> saves;
    const auto failed = [](QSaveFile& file) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return Error{QStringLiteral("%1: cannot write: %2").arg(file.fileName(), reason)};
    };
    auto main_file = std::make_unique<QSaveFile>(path);
    if (!main_file->open(QIODevice::WriteOnly))
        return failed(*main_file);
    bool written = false;
    if (suffix == u"csv")
        written = writeCsv(result, *main_file);
    else if (suffix == u"npy")
        written = writeNpy(result, *main_file);
    else
        written = JsonReport::write(result, *main_file, trace_head >= 0, trace_head);
    if (!written)
        return failed(*main_file);
    saves.push_back(std::move(main_file));
    for (const auto& [name, bytes] : sidecars) {
        auto file = std::make_unique<QSaveFile>(name);
        if (!file->open(QIODevice::WriteOnly) || file->write(bytes) != bytes.size())
            return failed(*file);
        saves.push_back(std::move(file));
    }
    for (auto& file : saves)
        if (!file->commit())
            return Error{QStringLiteral("%1: cannot write: %2").arg(file->fileName(), file->errorString())};
    return {};
}

}  // namespace attn
