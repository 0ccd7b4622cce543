#include "core/weights/JsonWeightsReader.h"

#include "core/io/JsonCursor.h"
#include "core/io/TensorSource.h"
#include "core/weights/WeightNaming.h"

#include <QSet>
#include <QStringList>

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace attn {
namespace {

const QStringList kKeys = {QStringLiteral("num_heads"), QStringLiteral("wq"), QStringLiteral("wk"),
                           QStringLiteral("wv"),        QStringLiteral("wo"), QStringLiteral("bq"),
                           QStringLiteral("bk"),        QStringLiteral("bv"), QStringLiteral("bo")};

bool isNote(const QString& key)
{
    return key == u"description" || key == u"comment" || key.startsWith(u'_');
}

bool startsNumber(char c)
{
    return c == '-' || (c >= '0' && c <= '9');
}

// Reads the values of the weight keys, refusing a count as soon as it passes its limit.
class WeightsParser {
public:
    explicit WeightsParser(JsonCursor& cursor) : m_cursor(cursor) {}

    // The value at the cursor as a float32; where() names it ("'wq' row 1 column 2"), only when
    // there is something to say.
    template <typename Where>
    Result<float> number(const Where& where)
    {
        if (!startsNumber(m_cursor.peek())) {
            if (Status s = m_cursor.skipValue(); !s)  // a syntax error comes first
                return Error{s.error()};
            return Error{QStringLiteral("%1 is not a number").arg(where())};
        }
        auto n = m_cursor.number();
        if (!n)
            return Error{n.error()};
        const double d = n->value;
        if (!std::isfinite(d) || std::abs(d) > double(std::numeric_limits<float>::max()))
            return Error{QStringLiteral("%1 (%2) is not a finite float32 value").arg(where()).arg(d)};
        return float(d);
    }

    Result<Matrix> matrix(const QString& key)  // (rows, cols) as written
    {
        if (m_cursor.peek() != '[')
            return notAnArray(QStringLiteral("'%1' is not a non-empty array of rows").arg(key));
        if (Status s = m_cursor.beginArray(); !s)
            return Error{s.error()};
        std::vector<float> values;  // row-major, grows with what the text holds
        std::int64_t rows = 0;
        std::int64_t cols = 0;
        for (;;) {
            auto more = m_cursor.nextElement();
            if (!more)
                return Error{more.error()};
            if (!*more)
                break;
            if (rows == WeightNaming::kMaxDimension)
                return Error{QStringLiteral("'%1' has more than %2 rows (dimensions above %2 are not supported)")
                                 .arg(key)
                                 .arg(WeightNaming::kMaxDimension)};
            if (m_cursor.peek() != '[')
                return notAnArray(rows == 0
                                      ? QStringLiteral("'%1' row 0 is not a non-empty array of numbers").arg(key)
                                      : QStringLiteral("'%1' row %2 is not an array of numbers").arg(key).arg(rows));
            if (Status s = m_cursor.beginArray(); !s)
                return Error{s.error()};
            std::int64_t length = 0;
            for (;;) {
                auto next = m_cursor.nextElement();
                if (!next)
                    return Error{next.error()};
                if (!*next)
                    break;
                if (length == WeightNaming::kMaxDimension)
                    return Error{
                        QStringLiteral("'%1' row %2 has more than %3 numbers (dimensions above %3 are not supported)")
                            .arg(key)
                            .arg(rows)
                            .arg(WeightNaming::kMaxDimension)};
                if (std::int64_t(values.size()) == WeightNaming::kMaxParameters)
                    return Error{
                        QStringLiteral("'%1' has more than %2 numbers").arg(key).arg(WeightNaming::kMaxParameters)};
                auto x = number([&] { return QStringLiteral("'%1' row %2 column %3").arg(key).arg(rows).arg(length); });
                if (!x)
                    return Error{x.error()};
                values.push_back(*x);
                ++length;
            }
            if (rows == 0 && length == 0)
                return Error{QStringLiteral("'%1' row 0 is not a non-empty array of numbers").arg(key)};
            if (rows == 0)
                cols = length;
            else if (length != cols)
                return Error{QStringLiteral("'%1' is not rectangular: row %2 has %3 numbers, row 0 has %4")
                                 .arg(key)
                                 .arg(rows)
                                 .arg(length)
                                 .arg(cols)};
            ++rows;
        }
        if (rows == 0)
            return Error{QStringLiteral("'%1' is not a non-empty array of rows").arg(key)};
        return Matrix(Eigen::Map<const Matrix>(values.data(), rows, cols));
    }

    Result<RowVector> vector(const QString& key)
    {
        if (m_cursor.peek() != '[')
            return notAnArray(QStringLiteral("'%1' is not a non-empty array of numbers").arg(key));
        if (Status s = m_cursor.beginArray(); !s)
            return Error{s.error()};
        std::vector<float> values;
        for (;;) {
            auto more = m_cursor.nextElement();
            if (!more)
                return Error{more.error()};
            if (!*more)
                break;
            if (std::int64_t(values.size()) == WeightNaming::kMaxDimension)
                return Error{QStringLiteral("'%1' has more than %2 entries (dimensions above %2 are not supported)")
                                 .arg(key)
                                 .arg(WeightNaming::kMaxDimension)};
            auto x = number([&] { return QStringLiteral("'%1' entry %2").arg(key).arg(values.size()); });
            if (!x)
                return Error{x.error()};
            values.push_back(*x);
        }
        if (values.empty())
            return Error{QStringLiteral("'%1' is not a non-empty array of numbers").arg(key)};
        return RowVector(Eigen::Map<const RowVector>(values.data(), Eigen::Index(values.size())));
    }

private:
    // Skips the value at the cursor (a syntax error in it wins) and returns `message`.
    Error notAnArray(const QString& message)
    {
        if (Status s = m_cursor.skipValue(); !s)
            return Error{s.error()};
        return Error{message};
    }

    JsonCursor& m_cursor;
};

QString dims(const Matrix& m)
{
    return QStringLiteral("%1 x %2").arg(m.rows()).arg(m.cols());
}

}  // namespace

Result<AttentionWeights> JsonWeightsReader::parse(QByteArrayView json, int num_heads)
{
    JsonCursor cursor(json, QStringLiteral("not valid JSON"));
    const char first = cursor.peek();
    if (first == '[') {
        if (Status s = cursor.skipValue(); !s)
            return Error{s.error()};
        return Error{QStringLiteral("the JSON is not an object with keys num_heads, wq, wk, wv, ...")};
    }
    if (first != '{')
        return cursor.syntaxError(QStringLiteral("a JSON object expected"));
    if (Status s = cursor.beginObject(); !s)
        return Error{s.error()};

    WeightsParser parser(cursor);
    QSet<QString> seen;
    std::optional<JsonCursor::Number> headsValue;  // "num_heads" when it is a number
    bool headsGiven = false;
    std::optional<Matrix> w[3];     // Wq, Wk, Wv: (input_dim, d_model)
    std::optional<RowVector> b[3];  // bq, bk, bv: (d_model)
    std::optional<Matrix> wo;       // (d_model, output_dim)
    std::optional<RowVector> bo;    // (output_dim)
    for (;;) {
        auto next = cursor.nextKey();
        if (!next)
            return Error{next.error()};
        if (!next->has_value())
            break;
        const QString key = **next;
        if (seen.contains(key))
            return Error{QStringLiteral("the key '%1' appears twice").arg(key)};
        seen.insert(key);
        const qsizetype index = kKeys.indexOf(key);
        if (index < 0) {
            if (!isNote(key))
                return Error{
                    QStringLiteral("unknown key '%1' (expected %2)").arg(key, kKeys.join(QStringLiteral(", ")))};
            if (Status s = cursor.skipValue(); !s)
                return Error{s.error()};
            continue;
        }
        if (key == u"num_heads") {
            headsGiven = true;
            if (startsNumber(cursor.peek())) {
                auto n = cursor.number();
                if (!n)
                    return Error{n.error()};
                headsValue = *n;
            } else if (Status s = cursor.skipValue(); !s) {
                return Error{s.error()};
            }
        } else if (index <= 4) {  // wq, wk, wv, wo
            auto m = parser.matrix(key);
            if (!m)
                return Error{m.error()};
            (index == 4 ? wo : w[index - 1]) = std::move(m).value();
        } else {  // bq, bk, bv, bo
            auto v = parser.vector(key);
            if (!v)
                return Error{v.error()};
            (index == 8 ? bo : b[index - 5]) = std::move(v).value();
        }
    }
    if (Status s = cursor.finish(); !s)
        return Error{s.error()};

    int heads = num_heads;
    if (heads <= 0) {
        if (!headsGiven)
            return Error{
                QStringLiteral("the number of heads is not known: none was chosen and the file states none "
                               "(no \"num_heads\" key)")};
        const double value = headsValue ? headsValue->value : 0.5;
        if (!headsValue || value != std::floor(value) || std::abs(value) > 1e15)
            return Error{QStringLiteral("\"num_heads\" is not an integer")};
        auto checked = checkNumHeads(std::int64_t(value));
        if (!checked)
            return Error{checked.error()};
        heads = *checked;
    }

    const char* names[3] = {"wq", "wk", "wv"};
    for (int i = 0; i < 3; ++i) {
        if (!w[i])
            return Error{QStringLiteral("the required key '%1' is missing").arg(QLatin1String(names[i]))};
        if (i > 0 && (w[i]->rows() != w[0]->rows() || w[i]->cols() != w[0]->cols()))
            return Error{QStringLiteral(
                             "'%1' is %2 but 'wq' is %3; wq, wk and wv must have the same shape (input_dim x d_model)")
                             .arg(QLatin1String(names[i]), dims(*w[i]), dims(*w[0]))};
    }
    const Eigen::Index d_model = w[0]->cols();

    const char* biasNames[3] = {"bq", "bk", "bv"};
    bool anyBias = false;
    for (int i = 0; i < 3; ++i) {
        if (!b[i])
            continue;
        if (b[i]->size() != d_model)
            return Error{QStringLiteral("'%1' has %2 entries, expected d_model = %3 (the columns of wq)")
                             .arg(QLatin1String(biasNames[i]))
                             .arg(b[i]->size())
                             .arg(d_model)};
        anyBias = true;
    }
    RowVector bias[3];  // (d_model) each; all empty when no bias is given
    for (int i = 0; i < 3; ++i)
        bias[i] = b[i] ? *b[i] : anyBias ? RowVector::Zero(d_model) : RowVector();

    if (wo && wo->rows() != d_model)
        return Error{QStringLiteral("'wo' is %1; it must have d_model = %2 rows").arg(dims(*wo)).arg(d_model)};
    if (bo) {
        const Eigen::Index out_dim = wo ? wo->cols() : d_model;
        if (bo->size() != out_dim)
            return Error{
                QStringLiteral("'bo' has %1 entries, expected the output dimension %2").arg(bo->size()).arg(out_dim)};
    }
    return AttentionWeights::fromParts(heads, *w[0], *w[1], *w[2], bias[0], bias[1], bias[2], wo ? *wo : Matrix(),
                                       bo ? *bo : RowVector());
}

}  // namespace attn
