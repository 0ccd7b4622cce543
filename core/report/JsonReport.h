#pragma once

#include "core/pipeline/AttentionResult.h"

#include <QByteArray>
#include <QIODevice>

#include <vector>

namespace attn {

class JsonWriter;

// What reproduces a result, beside the weights (--json-trace, the window's data export): the
// inputs X (and the keys' X), Q, K and V split into heads, and the scores as they enter the
// softmax: Q_h K_h^T divided by the scale, -infinity where masked (JSON: null, which has no
// infinity; NPY and CSV: -inf).
struct TraceData {
    std::vector<int> heads;      // which heads, in order
    Matrix x;                    // (query_len, input_dim)
    Matrix kv_x;                 // (key_len, input_dim) with a second input; else empty
    std::vector<Matrix> q;       // per head (query_len, head_dim)
    std::vector<Matrix> k;       // per head (key_len, head_dim): its key/value head under grouped queries
    std::vector<Matrix> v;       // per head (key_len, head_dim)
    std::vector<Matrix> scores;  // per head (query_len, key_len): scaled, masked = -infinity

    // Every head (head = -1) or one head of a result.
    static TraceData of(const AttentionResult& result, int head = -1);
};

// The --json document of the command-line contract.
class JsonReport {
public:
    // With `trace`, the document also holds "trace" (TraceData of `trace_head`, -1: every head):
    // an addition to the contract.
    static QByteArray build(const AttentionResult& result, bool trace = false, int trace_head = -1);
    // The same document, byte for byte, written to `device` as it is made (JsonWriter::streamTo):
    // the weights a block of queries at a time (forEachHeadRows: a long input's heads, one kept,
    // recomputed), the head metrics and divergences from every row (HeadTables), so neither the
    // text nor a long input's heads are ever whole in memory. False when a write failed.
    // value_norms (H, T_kv), when given: "attention_norms" (h, T_q, T_kv), each weight times its
    // key's value norm ||f^h(x_j)|| (AttentionNorms::valueNorms), after "attention".
    static bool write(const AttentionResult& result, QIODevice& device, bool trace = false, int trace_head = -1,
                      const Matrix* value_norms = nullptr);
    // The "trace" object alone, for the window's export of one head.
    static void writeTrace(JsonWriter& json, const TraceData& trace, float scale);
};

}  // namespace attn
