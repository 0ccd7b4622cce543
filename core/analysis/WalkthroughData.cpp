#include "core/analysis/WalkthroughData.h"

#include "core/analysis/ShapeData.h"
#include "core/attention/HeadRecomputer.h"
#include "core/pipeline/AttentionResult.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {
namespace {

QString tokenLabel(const TokenList& tokens, int index)
{
    const QString& text = tokens[index].text;
    const QString number = QString::number(index);
    return text == number ? number : number + QLatin1Char(' ') + text;
}

QStringList tokenLabels(const TokenList& tokens, int count)
{
    QStringList labels;
    labels.reserve(count);
    for (int i = 0; i < count; ++i)
        labels.append(tokenLabel(tokens, i));
    return labels;
}

QStringList indexLabels(int count, const QString& prefix = {})
{
    QStringList labels;
    labels.reserve(count);
    for (int i = 0; i < count; ++i)
        labels.append(prefix + QString::number(i));
    return labels;
}

WalkthroughTable table(QString title, QStringList rows, QStringList columns, Matrix values, int highlighted_row)
{
    WalkthroughTable t;
    t.title = std::move(title);
    t.row_labels = std::move(rows);
    t.column_labels = std::move(columns);
    t.values = std::move(values);
    t.highlighted_row = highlighted_row;
    return t;
}

// Step 2b: what the rotation did to the head's queries and keys. Q (T, H D) and K (T, H_kv D)
// before it are the result's; after it, the trace's. Position p turns features (i, i + R/2)
// by p θ_i, θ_i = inverse_frequencies[i], as float32 products (as transformers computes them).
WalkthroughStep rotationStep(const AttentionResult& result, int head, int query, const QStringList& keys,
                             const QStringList& head_dims)
{
    const AttentionTrace& trace = result.trace;
    const int head_dim = trace.head_dim;
    const int kv_head = trace.kvHeadOf(head);
    const int half = result.rotary_dim / 2;
    const int position = trace.query_offset + query;
    WalkthroughStep step;
    step.number = 2;
    step.label = QStringLiteral("2b");
    step.title = QStringLiteral("Rotary positions");
    step.formula =
        QStringLiteral(
            "at position p, features (i, i + %1) turn by p θ_i: x_i' = x_i cos − x_(i+%1) sin, "
            "x_(i+%1)' = x_(i+%1) cos + x_i sin%2")
            .arg(half)
            .arg(result.rotary_dim < head_dim
                     ? QStringLiteral("; features %1 … %2 pass through").arg(result.rotary_dim).arg(head_dim - 1)
                     : QString());
    if (result.q_before_rotation.rows() != trace.queryLength() ||
        result.k_before_rotation.rows() != trace.keyLength()) {
        step.unavailable = QStringLiteral("this result kept no Q and K from before the rotation");
        return step;
    }
    const auto q_before = result.q_before_rotation.middleCols(head * head_dim, head_dim);     // (T, d_k)
    const auto k_before = result.k_before_rotation.middleCols(kv_head * head_dim, head_dim);  // (T, d_k)
    Matrix pair(4, head_dim);                                                                 // (4, d_k)
    pair.row(0) = q_before.row(query);
    pair.row(1) = trace.qHead(head).row(query);
    pair.row(2) = k_before.row(position);
    pair.row(3) = trace.kHead(head).row(position);
    const QString g = QString::number(kv_head);
    step.tables.push_back(table(QStringLiteral("q and k at position %1, before and after  (4 × d_k)").arg(position),
                                {QStringLiteral("q before"), QStringLiteral("q' after"),
                                 QStringLiteral("k before (kv %1)").arg(g), QStringLiteral("k' after (kv %1)").arg(g)},
                                head_dims, std::move(pair), -1));
    step.tables.push_back(table(QStringLiteral("K of kv head %1 before the rotation  (T × d_k)").arg(g), keys,
                                head_dims, Matrix(k_before), position));
    Matrix angles(half, 4);  // (R/2, 4): θ_i, p θ_i, cos, sin
    QStringList pairs;
    for (int i = 0; i < half; ++i) {
        const float theta = result.inverse_frequencies[size_t(i)];
        const float angle = float(position) * theta;
        angles.row(i) << theta, angle, std::cos(angle), std::sin(angle);
        pairs.append(QStringLiteral("%1, %2").arg(i).arg(i + half));
    }
    step.tables.push_back(
        table(QStringLiteral("angles at position %1  (R/2 × 4)").arg(position), pairs,
              {QStringLiteral("θ_i"), QStringLiteral("p θ_i"), QStringLiteral("cos"), QStringLiteral("sin")},
              std::move(angles), -1));
    return step;
}

// Rows first .. first + rows - 1 of a head's weights: (rows, key_len). One query's row of a long
// input's head that was not kept is recomputed with its block of queries only, not with the whole
// head (8,192 x 8,192 floats at 8,192 tokens), and equals the whole head's row bit for bit.
Matrix headWeightRows(const AttentionTrace& trace, int head, int first, int rows)
{
    if (trace.keepsEveryHead() || head == trace.kept_head)
        return trace.probabilities[size_t(head)].middleRows(first, rows);
    if (rows != 1)
        return trace.headProbabilities(head)->middleRows(first, rows);
    const HeadRecomputer recomputer(trace);
    BlockBuffer buffer = recomputer.buffer();
    const int block = recomputer.blockOf(first);
    return recomputer.probabilities(head, block, buffer).row(first - recomputer.firstRow(block));
}

}  // namespace

WalkthroughData WalkthroughData::build(const AttentionResult& result, int head, int query)
{
    const AttentionTrace& trace = result.trace;
    // Dimensions, named once.
    const int num_heads = trace.num_heads;
    const int head_dim = trace.head_dim;
    const int query_len = trace.queryLength();
    const int key_len = trace.keyLength();

    WalkthroughData walk;
    if (num_heads <= 0 || query_len <= 0 || key_len <= 0 || result.input.tokens.size() < query_len ||
        result.keyTokens().size() < key_len)
        return walk;
    head = std::clamp(head, 0, num_heads - 1);
    query = std::clamp(query, 0, query_len - 1);
    walk.head = head;
    walk.query = query;

    const QStringList queries = tokenLabels(result.input.tokens, query_len);
    const QStringList keys = tokenLabels(result.keyTokens(), key_len);
    const QStringList head_dims = indexLabels(head_dim);
    const QString h = QString::number(head);
    const QString scale = QString::number(trace.scale, 'g', 6);
    walk.steps.resize(kStepCount);
    for (int i = 0; i < kStepCount; ++i)
        walk.steps[size_t(i)].number = i + 1;
    auto step = [&walk](int number) -> WalkthroughStep& { return walk.steps[size_t(number - 1)]; };

    // 1. The input rows, and the positional part of them when positions were added.
    const bool positional = result.input.positional.size() > 0;
    step(1).title = QStringLiteral("Input rows X");
    step(1).formula = !result.input_formula.isEmpty() ? result.input_formula
                      : positional                    ? QStringLiteral("x_t = embedding(token_t) + PE(t)")
                                   : QStringLiteral("x_t = the token's vector (no positional encoding)");
    step(1).tables.push_back(table(QStringLiteral("X  (T × d_in)"), queries, indexLabels(int(result.input.x.cols())),
                                   result.input.x, query));
    if (positional)
        step(1).tables.push_back(table(QStringLiteral("PE, the positional part of X  (T × d_in)"), queries,
                                       indexLabels(int(result.input.positional.cols())), result.input.positional,
                                       query));

    if (result.isCross())
        step(1).tables.push_back(table(QStringLiteral("X_kv, the rows keys and values come from  (T_kv × d_in)"), keys,
                                       indexLabels(int(result.kv_input.x.cols())), result.kv_input.x, -1));

    // 2. This head's columns of Q, K and V.
    step(2).title = QStringLiteral("Q, K, V of head %1").arg(h);
    const ShapeConfig shape = ShapeConfig::fromResult(result, 1);  // which biases exist
    step(2).formula = QStringLiteral("q_t = x_t Wq%1, columns %2 … %3 of Q (likewise k, v)")
                          .arg(shape.has_input_bias ? QStringLiteral(" + bq") : QString())
                          .arg(head * head_dim)
                          .arg((head + 1) * head_dim - 1);
    // Grouped-query attention: K and V are those of the head's key/value head; rotary: Q and K after the rotation.
    const bool rotary = result.rotary_dim > 0 && int(result.inverse_frequencies.size()) == result.rotary_dim / 2;
    const QString rotated = rotary ? QStringLiteral(" after rotation") : QString();
    const QString kv =
        trace.kvHeads() != num_heads ? QStringLiteral(" (kv head %1)").arg(trace.kvHeadOf(head)) : QString();
    step(2).tables.push_back(
        table(QStringLiteral("Q_%1%2  (T × d_k)").arg(h, rotated), queries, head_dims, trace.qHead(head), query));
    step(2).tables.push_back(
        table(QStringLiteral("K_%1%2%3  (T × d_k)").arg(h, kv, rotated), keys, head_dims, trace.kHead(head), -1));
    step(2).tables.push_back(
        table(QStringLiteral("V_%1%2  (T × d_k)").arg(h, kv), keys, head_dims, trace.vHead(head), -1));
    if (rotary && !result.isCross())
        walk.rotation = rotationStep(result, head, query, keys, head_dims);

    // 3-5. Raw, scaled and masked scores (the raw scores need TraceDetail::Full).
    step(3).title = QStringLiteral("Raw scores");
    step(3).formula = QStringLiteral("s_j = q · k_j for every key j");
    step(4).title = QStringLiteral("Scaled scores");
    const bool square_root = std::abs(trace.scale - std::sqrt(float(head_dim))) <= 1e-6f * trace.scale;
    step(4).formula = square_root ? QStringLiteral("s_j / √d_k = s_j / √%1 = s_j / %2").arg(head_dim).arg(scale)
                                  : QStringLiteral("s_j / %1").arg(scale);
    step(5).title = QStringLiteral("Masked scores");
    step(5).formula = trace.causal && trace.sliding_window > 0
                          ? QStringLiteral(
                                "−∞ where key j comes after query i, or %1 or more positions before it (causal mask, "
                                "sliding window %1)")
                                .arg(trace.sliding_window)
                      : trace.causal ? QStringLiteral("−∞ where key j comes after query i (causal mask)")
                      : trace.key_padding.empty() ? QStringLiteral("no mask: the scaled scores unchanged")
                                                  : QStringLiteral("−∞ where key j is padding");
    // A long input: the T x T steps hold the selected query's row only (one row of the head's
    // matrices, not a copy of them), and the walkthrough says so.
    const bool whole = std::int64_t(query_len) * key_len <= kWholeMatrixCells;
    if (!whole)
        walk.note = QStringLiteral("%1 queries × %2 keys: the score and weight steps show the row of query %3 only")
                        .arg(query_len)
                        .arg(key_len)
                        .arg(query);
    const auto squareTable = [&](const QString& name, Matrix values) {  // values (query_len or 1, key_len)
        if (whole)
            return table(QStringLiteral("%1  (T × T)").arg(name), queries, keys, std::move(values), query);
        WalkthroughTable row = table(QStringLiteral("%1, row of query %2  (1 × T)").arg(name).arg(query),
                                     QStringList{queries[query]}, keys, std::move(values), 0);
        row.first_row = query;
        return row;
    };
    const int first = whole ? 0 : query;  // the rows the tables hold
    const int rows = whole ? query_len : 1;
    // Raw scores: kept by a full trace, else this head's and query's row computed from Q and K.
    Matrix raw = trace.hasScores() ? Matrix(trace.scores[size_t(head)].middleRows(first, rows))  // (rows, key_len)
                                   : Matrix(trace.qHead(head).middleRows(first, rows) * trace.kHead(head).transpose());
    Matrix scaled = raw / trace.scale;  // (rows, key_len)
    Matrix masked = scaled;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < key_len; ++j)
            if (trace.isMasked(first + i, j))
                masked(i, j) = -std::numeric_limits<float>::infinity();
    step(3).tables.push_back(squareTable(QStringLiteral("Q_%1 K_%1ᵀ").arg(h), std::move(raw)));
    step(4).tables.push_back(squareTable(QStringLiteral("scores / %1").arg(scale), std::move(scaled)));
    step(5).tables.push_back(squareTable(QStringLiteral("masked"), std::move(masked)));

    // 6. Softmax weights.
    Matrix weights = headWeightRows(trace, head, first, rows);   // (rows, key_len)
    const RowVector query_weights = weights.row(query - first);  // (key_len)
    step(6).title = QStringLiteral("Softmax weights");
    step(6).formula = QStringLiteral("w_j = exp(s_j) / Σ_k exp(s_k); masked keys get 0");
    step(6).tables.push_back(squareTable(QStringLiteral("A_%1").arg(h), std::move(weights)));

    // 7. Every value vector times its weight: the one product this view computes, it is the step.
    Matrix weighted = trace.vHead(head);  // (key_len, head_dim)
    QStringList weighted_labels;
    weighted_labels.reserve(key_len);
    for (int j = 0; j < key_len; ++j) {
        weighted.row(j) *= query_weights(j);
        weighted_labels.append(QStringLiteral("%1  × %2").arg(keys[j], QString::number(query_weights(j), 'f', 4)));
    }
    step(7).title = QStringLiteral("Weighted values");
    step(7).formula = QStringLiteral("w_j v_j for every key j (query %1)").arg(queries[query]);
    step(7).tables.push_back(
        table(QStringLiteral("w_j v_j  (T × d_k)"), weighted_labels, head_dims, std::move(weighted), -1));

    // 8. Their sum: the head's output row.
    step(8).title = QStringLiteral("Head output");
    step(8).formula = QStringLiteral("o = Σ_j w_j v_j");
    step(8).tables.push_back(
        table(QStringLiteral("O_%1  (T × d_k)").arg(h), queries, head_dims, trace.headOutput(head), query));

    // 9. All heads side by side.
    QStringList concat_columns;
    for (int hh = 0; hh < num_heads; ++hh)
        for (int i = 0; i < head_dim; ++i)
            concat_columns.append(QStringLiteral("h%1:%2").arg(hh).arg(i));
    step(9).title = QStringLiteral("Concatenation of the heads");
    step(9).formula = QStringLiteral("concat(o_0, …, o_%1); head %2 is columns %3 … %4")
                          .arg(num_heads - 1)
                          .arg(head)
                          .arg(head * head_dim)
                          .arg((head + 1) * head_dim - 1);
    WalkthroughTable concat =
        table(QStringLiteral("concat  (T × d_model)"), queries, concat_columns, trace.concat, query);
    concat.highlighted_first_column = head * head_dim;
    concat.highlighted_column_count = head_dim;
    step(9).tables.push_back(std::move(concat));

    // 10. The output projection.
    step(10).title = QStringLiteral("Output row");
    step(10).formula = !result.has_output_projection ? QStringLiteral("no output projection: y = concat")
                       : shape.has_output_bias       ? QStringLiteral("y = concat Wo + bo")
                                                     : QStringLiteral("y = concat Wo");
    step(10).tables.push_back(
        table(QStringLiteral("Y  (T × d_out)"), queries, indexLabels(int(trace.output.cols())), trace.output, query));

    // Neuron-level breakdown of the raw scores: products(j, i) = q_i k_j,i.
    Matrix products = trace.kHead(head);  // (key_len, head_dim)
    products.array().rowwise() *= trace.qHead(head).row(query).array();
    walk.products = table(QStringLiteral("q_i · k_j,i  (keys × d_k)"), keys, head_dims, std::move(products), -1);
    return walk;
}

}  // namespace attn
