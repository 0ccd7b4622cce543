#pragma once

#include "core/base/Result.h"

#include <QByteArray>
#include <QString>

namespace attn {

struct AttentionResult;

// The attention weights of a result as data files, written atomically (QSaveFile):
// - .csv : one row per (head, query, key): head,query,query_token,key,key_token,weight
// - .json: the command line's --json document (core/report/JsonReport): tokens, config, shapes,
//          attention [h][T][T], output, head metrics; one schema for both
// - .npy : float32 array of shape (num_heads, query_len, key_len), C order (core/NpyWriter)
class DataExporter {
public:
    static Status exportWeights(const AttentionResult& result, const QString& path);

    static QByteArray toCsv(const AttentionResult& result);
    static QByteArray toJson(const AttentionResult& result);
    static QByteArray toNpy(const AttentionResult& result);
};

}  // namespace attn
