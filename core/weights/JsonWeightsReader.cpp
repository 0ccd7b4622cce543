#include "core/weights/JsonWeightsReader.h"

#include "core/io/TensorSource.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>

namespace attn {
namespace {

const QStringList kKeys = {QStringLiteral("num_heads"), QStringLiteral("wq"), QStringLiteral("wk"),
                           QStringLiteral("wv"),        QStringLiteral("wo"), QStringLiteral("bq"),
                           QStringLiteral("bk"),        QStringLiteral("bv"), QStringLiteral("bo")};

Result<float> number(const QJsonValue& v, const QString& where)
{
    if (!v.isDouble())
        return Error{QStringLiteral("%1 is not a number").arg(where)};
    const double d = v.toDouble();
    if (!std::isfinite(d) || std::abs(d) > double(std::numeric_limits<float>::max()))
        return Error{QStringLiteral("%1 (%2) is not a finite float32 value").arg(where).arg(d)};
    return float(d);
}

Result<RowVector> vector(const QJsonValue& v, const QString& key)
{
    if (!v.isArray() || v.toArray().isEmpty())
        return Error{QStringLiteral("'%1' is not a non-empty array of numbers").arg(key)};
    const QJsonArray array = v.toArray();
    RowVector out(array.size());
    for (qsizetype i = 0; i < array.size(); ++i) {
        auto x = number(array[i], QStringLiteral("'%1' entry %2").arg(key).arg(i));
        if (!x)
            return Error{x.error()};
        out[i] = *x;
    }
    return out;
}

Result<Matrix> matrix(const QJsonValue& v, const QString& key)
{
    if (!v.isArray() || v.toArray().isEmpty())
        return Error{QStringLiteral("'%1' is not a non-empty array of rows").arg(key)};
    const QJsonArray rows = v.toArray();
    if (!rows[0].isArray() || rows[0].toArray().isEmpty())
        return Error{QStringLiteral("'%1' row 0 is not a non-empty array of numbers").arg(key)};
    const qsizetype cols = rows[0].toArray().size();
    // Every row's length is checked before allocating rows x cols.
    for (qsizetype r = 0; r < rows.size(); ++r) {
        if (!rows[r].isArray())
            return Error{QStringLiteral("'%1' row %2 is not an array of numbers").arg(key).arg(r)};
        const qsizetype length = rows[r].toArray().size();
        if (length != cols)
            return Error{QStringLiteral("'%1' is not rectangular: row %2 has %3 numbers, row 0 has %4")
                             .arg(key)
                             .arg(r)
                             .arg(length)
                             .arg(cols)};
    }
    Matrix out(rows.size(), cols);  // (rows, cols)
    for (qsizetype r = 0; r < rows.size(); ++r) {
        const QJsonArray row = rows[r].toArray();
        for (qsizetype c = 0; c < cols; ++c) {
            auto x = number(row[c], QStringLiteral("'%1' row %2 column %3").arg(key).arg(r).arg(c));
            if (!x)
                return Error{x.error()};
            out(r, c) = *x;
        }
    }
    return out;
}

QString dims(const Matrix& m)
{
    return QStringLiteral("%1 x %2").arg(m.rows()).arg(m.cols());
}

}  // namespace

Result<AttentionWeights> JsonWeightsReader::parse(const QByteArray& json, int num_heads)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Error{
            QStringLiteral("not valid JSON (%1 at byte %2)").arg(parseError.errorString()).arg(parseError.offset)};
    if (!doc.isObject())
        return Error{QStringLiteral("the JSON is not an object with keys num_heads, wq, wk, wv, ...")};
    const QJsonObject root = doc.object();
    for (auto it = root.begin(); it != root.end(); ++it) {
        const QString& key = it.key();
        if (!kKeys.contains(key) && key != u"description" && key != u"comment" && !key.startsWith(u'_'))
            return Error{QStringLiteral("unknown key '%1' (expected %2)").arg(key, kKeys.join(QStringLiteral(", ")))};
    }

    int heads = num_heads;
    if (heads <= 0) {
        const QJsonValue value = root.value(QLatin1String("num_heads"));
        if (value.isUndefined())
            return Error{QStringLiteral("no \"num_heads\" key and no number of heads given (--heads)")};
        const qint64 n = value.toInteger(-1);
        if (!value.isDouble() || double(n) != value.toDouble())
            return Error{QStringLiteral("\"num_heads\" is not an integer")};
        auto checked = checkNumHeads(n);
        if (!checked)
            return Error{checked.error()};
        heads = *checked;
    }

    Matrix w[3];  // Wq, Wk, Wv: (input_dim, d_model)
    const char* names[3] = {"wq", "wk", "wv"};
    for (int i = 0; i < 3; ++i) {
        const QString key = QLatin1String(names[i]);
        if (!root.contains(key))
            return Error{QStringLiteral("the required key '%1' is missing").arg(key)};
        auto m = matrix(root.value(key), key);
        if (!m)
            return Error{m.error()};
        w[i] = std::move(m).value();
        if (i > 0 && (w[i].rows() != w[0].rows() || w[i].cols() != w[0].cols()))
            return Error{QStringLiteral(
                             "'%1' is %2 but 'wq' is %3; wq, wk and wv must have the same shape (input_dim x d_model)")
                             .arg(key, dims(w[i]), dims(w[0]))};
    }
    const Eigen::Index d_model = w[0].cols();

    RowVector b[3];  // bq, bk, bv: (d_model), empty when none is given
    const char* biasNames[3] = {"bq", "bk", "bv"};
    bool anyBias = false;
    for (int i = 0; i < 3; ++i) {
        const QString key = QLatin1String(biasNames[i]);
        if (!root.contains(key))
            continue;
        auto v = vector(root.value(key), key);
        if (!v)
            return Error{v.error()};
        if (v->size() != d_model)
            return Error{QStringLiteral("'%1' has %2 entries, expected d_model = %3 (the columns of wq)")
                             .arg(key)
                             .arg(v->size())
                             .arg(d_model)};
        b[i] = std::move(v).value();
        anyBias = true;
    }
    for (RowVector& bias : b)
        if (anyBias && bias.size() == 0)
            bias = RowVector::Zero(d_model);

    Matrix wo;     // (d_model, output_dim) or empty
    RowVector bo;  // (output_dim) or empty
    if (root.contains(QLatin1String("wo"))) {
        auto m = matrix(root.value(QLatin1String("wo")), QStringLiteral("wo"));
        if (!m)
            return Error{m.error()};
        wo = std::move(m).value();
        if (wo.rows() != d_model)
            return Error{QStringLiteral("'wo' is %1; it must have d_model = %2 rows").arg(dims(wo)).arg(d_model)};
    }
    if (root.contains(QLatin1String("bo"))) {
        auto v = vector(root.value(QLatin1String("bo")), QStringLiteral("bo"));
        if (!v)
            return Error{v.error()};
        const Eigen::Index out_dim = wo.size() ? wo.cols() : d_model;
        if (v->size() != out_dim)
            return Error{
                QStringLiteral("'bo' has %1 entries, expected the output dimension %2").arg(v->size()).arg(out_dim)};
        bo = std::move(v).value();
    }
    return AttentionWeights::fromParts(heads, w[0], w[1], w[2], b[0], b[1], b[2], wo, bo);
}

}  // namespace attn
