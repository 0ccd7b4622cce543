#pragma once

#include "core/base/Result.h"
#include "core/base/Tensor.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

#include <cstdint>

namespace attn {

struct AttentionResult;

// The attention weights of a result as data files, written atomically (QSaveFile):
// - .csv : one row per (head, query, key): head,query,query_token,key,key_token,weight
// - .json: the command line's --json document (core/report/JsonReport): tokens, config, shapes,
//          attention [h][T][T], output, head metrics; one schema for both
// - .npy : float32 array of shape (num_heads, query_len, key_len), C order (core/NpyWriter)
// With `trace_head` >= 0 the export also holds what reproduces that head (core/report TraceData):
// - .json: "trace" {heads, scale, x, kv_x, q, k, v, scores}, masked scores null;
// - .csv and .npy: one more file per array beside the weights, NAME.x, NAME.kv_x (a second
//   input), NAME.q, NAME.k, NAME.v (query_len or key_len, head_dim) and NAME.scores
//   (query_len, key_len), masked scores -inf. All are written beside their targets first and
//   renamed into place once every one is written (a failed write leaves none of them).
// The weights are written a part at a time in every format, so their text is never whole in
// memory, and a long input's heads (one kept) are recomputed a block of queries at a time; a
// trace, of one head, is made whole before it is written. CSV or JSON of more than
// kMaxTextWeights weights (gigabytes of text) and any file larger than the free space where it
// goes are refused before anything is written, with the size it would have.
class DataExporter {
public:
    static constexpr std::int64_t kMaxTextWeights = std::int64_t(1) << 26;
    static Status exportWeights(const AttentionResult& result, const QString& path, int trace_head = -1);

    // The JSON document's size before it is written, never less than it will be, so that the
    // free-space check does not let through a file that cannot fit.
    static double jsonBytesAtMost(const AttentionResult& result, int trace_head = -1);

    static QByteArray toCsv(const AttentionResult& result);
    static QByteArray toJson(const AttentionResult& result, int trace_head = -1);
    static QByteArray toNpy(const AttentionResult& result);
    // A matrix as CSV: one line per row, numbers in shortest round-trip form, -inf / inf / nan.
    static QByteArray matrixCsv(const Matrix& matrix);
    // The sidecar files of a trace: (file path, bytes), in the format of `path`'s extension.
    static QList<QPair<QString, QByteArray>> traceFiles(const AttentionResult& result, const QString& path, int head);
};

}  // namespace attn
