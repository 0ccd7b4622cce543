#include "core/report/JsonReport.h"

#include "core/analysis/HeadTables.h"
#include "core/attention/HeadRecomputer.h"
#include "core/io/JsonWriter.h"

#include <QBuffer>

#include <limits>

namespace attn {

TraceData TraceData::of(const AttentionResult& result, int head)
{
    const AttentionTrace& trace = result.trace;
    TraceData data;
    if (head >= 0)
        data.heads = {head};
    else
        for (int h = 0; h < trace.num_heads; ++h)
            data.heads.push_back(h);
    data.x = result.input.x;
    if (result.isCross())
        data.kv_x = result.kv_input.x;
    const float infinity = std::numeric_limits<float>::infinity();
    for (int h : data.heads) {
        data.q.push_back(trace.qHead(h));
        data.k.push_back(trace.kHead(h));
        data.v.push_back(trace.vHead(h));
        Matrix scores = (data.q.back() * data.k.back().transpose()) / trace.scale;  // (query_len, key_len)
        for (int query = 0; query < int(scores.rows()); ++query)
            for (int key = 0; key < int(scores.cols()); ++key)
                if (trace.isMasked(query, key))
                    scores(query, key) = -infinity;
        data.scores.push_back(std::move(scores));
    }
    return data;
}

void JsonReport::writeTrace(JsonWriter& json, const TraceData& trace, float scale)
{
    json.beginObject();
    json.key("heads").array(trace.heads);
    json.key("scale").value(double(scale));
    json.key("x").matrix(trace.x);
    if (trace.kv_x.size() > 0)
        json.key("kv_x").matrix(trace.kv_x);
    json.key("q").matrices(trace.q);
    json.key("k").matrices(trace.k);
    json.key("v").matrices(trace.v);
    json.key("scores").matrices(trace.scores);  // -infinity (masked) is written as null
    json.endObject();
}

QByteArray JsonReport::build(const AttentionResult& result, bool with_trace, int trace_head)
{
    QByteArray document;
    QBuffer buffer(&document);
    buffer.open(QIODevice::WriteOnly);
    write(result, buffer, with_trace, trace_head);
    return document;
}

bool JsonReport::write(const AttentionResult& result, QIODevice& device, bool with_trace, int trace_head,
                       const Matrix* value_norms)
{
    const AttentionTrace& trace = result.trace;
    const int seq_len = result.seqLen();  // T_q
    const int key_len = result.keyLen();  // T_kv
    const int num_heads = trace.num_heads;
    const int head_dim = trace.head_dim;

    QStringList tokens;
    for (const Token& token : result.input.tokens)
        tokens.append(token.text);

    JsonWriter json;
    json.streamTo(device);
    json.beginObject();
    json.key("tokens").array(tokens);
    if (result.isCross()) {
        QStringList kv_tokens;
        for (const Token& token : result.kv_input.tokens)
            kv_tokens.append(token.text);
        json.key("kv_tokens").array(kv_tokens);
    }

    json.key("config").beginObject();
    json.key("d_model").value(trace.dModel());
    json.key("num_heads").value(num_heads);
    json.key("head_dim").value(head_dim);
    json.key("input_dim").value(int(result.input.x.cols()));
    json.key("causal").value(trace.causal);
    json.key("scale").value(double(trace.scale));
    json.key("output_dim").value(result.output_dim);
    json.key("weights").value(result.weights_description);
    json.key("positional_encoding").value(result.input.positional.size() > 0);
    if (!result.config.padded_keys.isEmpty()) {
        std::vector<int> padded;
        for (int key = 0; key < int(trace.key_padding.size()); ++key)
            if (trace.key_padding[size_t(key)])
                padded.push_back(key);
        json.key("pad_keys").array(padded);
    }
    json.endObject();

    json.key("shapes").beginObject();
    json.key("input").array({seq_len, int(result.input.x.cols())});
    if (result.isCross())
        json.key("kv_input").array({key_len, int(result.kv_input.x.cols())});
    json.key("q").array({num_heads, seq_len, head_dim});
    json.key("scores").array({num_heads, seq_len, key_len});
    json.key("concat").array({seq_len, num_heads * head_dim});
    json.key("output").array({seq_len, result.output_dim});
    json.endObject();

    // [head][query][key]: the text JsonWriter::matrices(trace.probabilities) would write, made from rows
    // that a long input recomputes a block at a time.
    json.key("attention").beginArray();
    int open_head = -1;
    const bool written = forEachHeadRows(trace, [&](int head, int, const ConstBlockRef& rows) {
        if (head != open_head) {
            if (open_head >= 0)
                json.endArray();
            json.beginArray();
            open_head = head;
        }
        for (Eigen::Index i = 0; i < rows.rows(); ++i)
            json.row(rows.row(i).data(), rows.cols());
        return json.ok();
    });
    if (!written)
        return false;
    if (open_head >= 0)
        json.endArray();
    json.endArray();
    if (value_norms) {
        json.key("attention_norms").beginArray();
        open_head = -1;
        RowVector weighted(key_len);
        const bool normed = forEachHeadRows(trace, [&](int head, int, const ConstBlockRef& rows) {
            if (head != open_head) {
                if (open_head >= 0)
                    json.endArray();
                json.beginArray();
                open_head = head;
            }
            for (Eigen::Index i = 0; i < rows.rows(); ++i) {
                weighted.array() = rows.row(i).array() * value_norms->row(head).array();
                json.row(weighted.data(), weighted.size());
            }
            return json.ok();
        });
        if (!normed)
            return false;
        if (open_head >= 0)
            json.endArray();
        json.endArray();
    }
    if (!trace.key_padding.empty()) {
        // Queries that see no key at all: their weights (and head outputs) are all zeros.
        std::vector<int> empty_rows;
        for (int query = 0; query < seq_len; ++query) {
            bool sees_a_key = false;
            for (int key = 0; key < key_len && !sees_a_key; ++key)
                sees_a_key = !trace.isMasked(query, key);
            if (!sees_a_key)
                empty_rows.push_back(query);
        }
        json.key("empty_rows").array(empty_rows);
    }
    json.key("output").matrix(trace.output);
    if (with_trace) {
        json.key("trace");
        writeTrace(json, TraceData::of(result, trace_head), trace.scale);
    }

    // Additions to the contract: per-head summary numbers and the head x head Jensen-Shannon
    // divergence (natural log), both in head order (definitions in core/analysis/HeadMetrics.h),
    // over every query row: computeHeadMetrics and similarityMatrix of the heads' matrices.
    const HeadTables tables = HeadTables::compute(result, std::numeric_limits<std::int64_t>::max());
    json.key("head_metrics").beginArray();
    for (const HeadMetric& metric : tables.metrics) {
        json.beginObject();
        json.key("entropy").value(metric.entropy);
        json.key("max").value(metric.max);
        json.key("diagonal").value(metric.diagonal);
        json.key("previous").value(metric.previous);
        json.key("first").value(metric.first);
        json.endObject();
    }
    json.endArray();
    const MatrixD& similarity = tables.divergence;  // (num_heads, num_heads)
    json.key("head_similarity").beginArray();
    for (Eigen::Index x = 0; x < similarity.rows(); ++x) {
        json.beginArray();
        for (Eigen::Index y = 0; y < similarity.cols(); ++y)
            json.value(similarity(x, y));
        json.endArray();
    }
    json.endArray();
    json.endObject();
    return json.finish() && device.write("\n", 1) == 1;
}

}  // namespace attn
