#include "core/analysis/ShapeData.h"

#include "core/pipeline/AttentionResult.h"

#include <QStringList>

#include <algorithm>
#include <tuple>

#include <cmath>

namespace attn {
namespace {

QString formatScale(double scale, std::int64_t head_dim)
{
    const double root = std::sqrt(double(head_dim));
    if (std::abs(scale - root) < 1e-6 * std::max(1.0, root))
        return QStringLiteral("√d_k");
    return QString::number(scale, 'g', 4);
}

}  // namespace

double ShapeConfig::effectiveScale() const
{
    return scale > 0.0 ? scale : std::sqrt(double(headDim()));
}

ShapeConfig ShapeConfig::fromResult(const AttentionResult& result, std::int64_t batch)
{
    const AttentionTrace& trace = result.trace;
    ShapeConfig config;
    config.batch = batch;
    config.seq_len = result.seqLen();
    config.kv_len = result.isCross() ? result.keyLen() : 0;
    config.input_dim = result.input.x.cols();
    config.d_model = trace.dModel();
    config.num_heads = trace.num_heads;
    config.output_dim = result.output_dim;
    config.has_output_projection = result.has_output_projection;
    config.causal = trace.causal;
    config.masked =
        trace.causal || std::find(trace.key_padding.begin(), trace.key_padding.end(), true) != trace.key_padding.end();
    config.scale = trace.scale;
    config.positional = result.input.positional.size() > 0;
    config.num_kv_heads = trace.kvHeads();
    config.rotary_dim = result.rotary_dim;
    config.sliding_window = trace.sliding_window;

    // parameters = d_in (d_model + 2 d_kv) [+ d_model + 2 d_kv] [+ d_model * d_out [+ d_out]]
    const std::int64_t in_width = config.d_model + 2 * config.kvDim();
    const std::int64_t in_bias = in_width;
    const std::int64_t out_bias = config.has_output_projection ? config.output_dim : 0;
    std::int64_t extra = result.parameter_count - config.input_dim * in_width;
    if (config.has_output_projection)
        extra -= config.d_model * config.output_dim;
    config.has_input_bias = extra == in_bias || extra == in_bias + out_bias;
    config.has_output_bias =
        config.has_output_projection && (extra == in_bias + out_bias || (extra == out_bias && !config.has_input_bias));
    return config;
}

QString ShapeStep::shapeText() const
{
    QStringList parts;
    for (const ShapeDim& dim : shape)
        parts.append(QString::number(dim.value));
    return QLatin1Char('(') + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
}

QString ShapeStep::shapeNames() const
{
    QStringList parts;
    for (const ShapeDim& dim : shape)
        parts.append(dim.name);
    return QLatin1Char('(') + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
}

std::int64_t ShapeStep::elementCount() const
{
    std::int64_t count = 1;
    for (const ShapeDim& dim : shape)
        count *= dim.value;
    return count;
}

ShapeData::ShapeData(const ShapeConfig& config) : m_config(config)
{
    using Id = ShapeStep::Id;
    using Kind = ShapeStep::Kind;
    // Dimensions, named once.
    const std::int64_t B = config.batch;
    const std::int64_t T = config.seq_len;      // queries
    const std::int64_t S = config.keyLength();  // keys and values: T, or T_kv from a second input
    const std::int64_t d_in = config.input_dim;
    const std::int64_t d_model = config.d_model;
    const std::int64_t h = config.num_heads;
    const std::int64_t d_k = config.headDim();
    const std::int64_t d_out = config.output_dim;
    const ShapeDim dB{QStringLiteral("B"), B}, dT{QStringLiteral("T"), T}, dIn{QStringLiteral("d_in"), d_in},
        dModel{QStringLiteral("d_model"), d_model}, dH{QStringLiteral("h"), h}, dK{QStringLiteral("d_k"), d_k},
        dOut{QStringLiteral("d_out"), d_out};
    // Grouped-query attention: keys and values have h_kv heads, d_kv = h_kv d_k wide.
    const bool grouped = config.isGrouped();
    const ShapeDim dKv = grouped ? ShapeDim{QStringLiteral("d_kv"), config.kvDim()} : dModel;
    const ShapeDim dHkv = grouped ? ShapeDim{QStringLiteral("h_kv"), config.kvHeads()} : dH;
    // Cross-attention names both lengths; self-attention keeps the one T.
    const ShapeDim dQ = config.isCross() ? ShapeDim{QStringLiteral("T_q"), T} : dT;
    const ShapeDim dS = config.isCross() ? ShapeDim{QStringLiteral("T_kv"), S} : dT;
    const QString scale = formatScale(config.effectiveScale(), d_k);

    auto add = [this](Id id, Kind kind, QString name, QString formula, QList<ShapeDim> shape) -> ShapeStep& {
        ShapeStep step;
        step.id = id;
        step.kind = kind;
        step.name = std::move(name);
        step.formula = std::move(formula);
        step.shape = std::move(shape);
        m_steps.push_back(std::move(step));
        return m_steps.back();
    };

    add(Id::Input, Kind::Tensor, QStringLiteral("X"),
        config.isCross()
            ? QStringLiteral("X = the queries' token vectors; keys and values from X_kv (B, T_kv = %1, d_in)").arg(S)
        : config.positional ? QStringLiteral("X = embeddings + positions")
                            : QStringLiteral("X = the token vectors"),
        {dB, dQ, dIn});

    // 1. Projections: Q = X Wq + bq, one (d_in x d_model) matrix each.
    const struct {
        Id weight, tensor;
        const char* w;
        const char* t;
        const char* b;
    } projections[] = {
        {Id::Wq, Id::Q, "Wq", "Q", "bq"}, {Id::Wk, Id::K, "Wk", "K", "bk"}, {Id::Wv, Id::V, "Wv", "V", "bv"}};
    for (const auto& p : projections) {
        const bool query = p.tensor == Id::Q;
        const ShapeDim& width = query ? dModel : dKv;
        const QString w_name = QLatin1String(p.w);
        ShapeStep& w =
            add(p.weight, Kind::Weight, w_name,
                config.has_input_bias
                    ? QStringLiteral("%1 (d_in × %2), bias %3 (%2)").arg(w_name, width.name, QLatin1String(p.b))
                    : QStringLiteral("%1 (d_in × %2), no bias").arg(w_name, width.name),
                {dIn, width});
        w.parameters = d_in * width.value + (config.has_input_bias ? width.value : 0);
        w.cost_formula = config.has_input_bias ? QStringLiteral("d_in·%1 + %1").arg(width.name)
                                               : QStringLiteral("d_in·%1").arg(width.name);
    }
    for (const auto& p : projections) {
        const bool query = p.tensor == Id::Q;
        const ShapeDim& width = query ? dModel : dKv;
        const std::int64_t rows = query ? T : S;
        const QString x = query || !config.isCross() ? QStringLiteral("X") : QStringLiteral("X_kv");
        ShapeStep& t = add(
            p.tensor, Kind::Tensor, QLatin1String(p.t),
            config.has_input_bias
                ? QStringLiteral("%1 = %2 %3 + %4").arg(QLatin1String(p.t), x, QLatin1String(p.w), QLatin1String(p.b))
                : QStringLiteral("%1 = %2 %3").arg(QLatin1String(p.t), x, QLatin1String(p.w)),
            {dB, query ? dQ : dS, width});
        t.multiply_adds = B * rows * d_in * width.value;
        t.cost_formula = QStringLiteral("B·%1·d_in·%2").arg((query ? dQ : dS).name, width.name);
        t.elementwise = config.has_input_bias ? B * rows * width.value : 0;
    }

    // 2. Split: d_model = h x d_k, heads become an axis (a reshape and transpose, no arithmetic).
    for (const auto& [id, name] : {std::pair{Id::QHeads, "Q"}, {Id::KHeads, "K"}, {Id::VHeads, "V"}}) {
        const ShapeDim& length = id == Id::QHeads ? dQ : dS;
        const ShapeDim& heads = id == Id::QHeads ? dH : dHkv;
        ShapeStep& t = add(
            id, Kind::Tensor, QStringLiteral("%1 heads").arg(QLatin1String(name)),
            QStringLiteral("%1 → (B, %2, %3, d_k), swap %2 and %3").arg(QLatin1String(name), length.name, heads.name),
            {dB, heads, length, dK});
        t.head_axis = 1;
    }

    // 2b. Rotary positions (apply_rotary_pos_emb): each head's first R features, in pairs
    // (i, i + R/2), turned by the angle p θ_i of the token's position p. The rest pass through.
    if (config.rotary_dim > 0) {
        const std::int64_t R = config.rotary_dim;
        const QString part = R < d_k ? QStringLiteral(" on the first R = %1 of d_k = %2 features").arg(R).arg(d_k)
                                     : QStringLiteral(" on all d_k = %1 features").arg(d_k);
        for (const auto& [id, name, heads, rows] :
             {std::tuple{Id::QRotated, "Q", dH, dQ}, std::tuple{Id::KRotated, "K", dHkv, dS}}) {
            ShapeStep& t = add(id, Kind::Tensor, QStringLiteral("%1 rotated").arg(QLatin1String(name)),
                               QStringLiteral("%1' = %1 cos(p θ) + rotate_half(%1) sin(p θ)%2, θ_i = 1/base^(2i/R)")
                                   .arg(QLatin1String(name), part),
                               {dB, heads, rows, dK});
            t.head_axis = 1;
            t.elementwise = 2 * B * heads.value * rows.value * R;  // two products per rotated feature
        }
    }

    // 2c. Grouped-query attention (repeat_kv): each key/value head copied for its h / h_kv query heads.
    if (grouped) {
        for (const auto& [id, name] : {std::pair{Id::KRepeated, "K"}, {Id::VRepeated, "V"}}) {
            ShapeStep& t = add(id, Kind::Tensor, QStringLiteral("%1 repeated").arg(QLatin1String(name)),
                               QStringLiteral("repeat_kv: (B, h_kv, %1, d_k) → (B, h, %1, d_k), each kv head × %2")
                                   .arg(dS.name)
                                   .arg(h / config.kvHeads()),
                               {dB, dH, dS, dK});
            t.head_axis = 1;
        }
    }

    // 3. Scores per head, then the mask, then the softmax over the keys.
    ShapeStep& scores = add(Id::Scores, Kind::Tensor, QStringLiteral("scores"),
                            QStringLiteral("S = Q_h K_hᵀ / %1").arg(scale), {dB, dH, dQ, dS});
    const QString products = QStringLiteral("B·h·%1·%2·d_k").arg(dQ.name, dS.name);
    scores.head_axis = 1;
    scores.multiply_adds = B * h * T * S * d_k;
    scores.cost_formula = products;
    scores.elementwise = B * h * T * S;  // the division by the scale
    if (config.masked) {
        ShapeStep& masked = add(
            Id::Masked, Kind::Tensor, QStringLiteral("masked scores"),
            config.windowed() ? QStringLiteral("S[i, j] = −∞ for j > i or j ≤ i − W (causal, sliding window W = %1)")
                                    .arg(config.sliding_window)
            : config.causal ? QStringLiteral("S[i, j] = −∞ for j > i (causal)")
                            : QStringLiteral("S[i, j] = −∞ for padding keys j"),
            {dB, dH, dQ, dS});
        masked.head_axis = 1;
        masked.elementwise = B * h * T * S;
    }
    ShapeStep& softmax = add(Id::Softmax, Kind::Tensor, QStringLiteral("weights"),
                             QStringLiteral("A = softmax(S), rows sum to 1"), {dB, dH, dQ, dS});
    softmax.head_axis = 1;
    softmax.elementwise = B * h * T * S;  // one exponential per entry

    ShapeStep& heads = add(Id::HeadOutputs, Kind::Tensor, QStringLiteral("head outputs"), QStringLiteral("O_h = A V_h"),
                           {dB, dH, dQ, dK});
    heads.head_axis = 1;
    heads.multiply_adds = B * h * T * S * d_k;
    heads.cost_formula = products;

    // 4. Heads side by side again, then the output projection.
    add(Id::Concat, Kind::Tensor, QStringLiteral("concat"), QStringLiteral("heads side by side again"),
        {dB, dQ, dModel});
    if (config.has_output_projection) {
        ShapeStep& wo = add(Id::Wo, Kind::Weight, QStringLiteral("Wo"),
                            config.has_output_bias ? QStringLiteral("Wo (d_model × d_out), bias bo (d_out)")
                                                   : QStringLiteral("Wo (d_model × d_out), no bias"),
                            {dModel, dOut});
        wo.parameters = d_model * d_out + (config.has_output_bias ? d_out : 0);
        wo.cost_formula =
            config.has_output_bias ? QStringLiteral("d_model·d_out + d_out") : QStringLiteral("d_model·d_out");
        ShapeStep& out =
            add(Id::Output, Kind::Tensor, QStringLiteral("output"),
                config.has_output_bias ? QStringLiteral("Y = concat Wo + bo") : QStringLiteral("Y = concat Wo"),
                {dB, dQ, dOut});
        out.multiply_adds = B * T * d_model * d_out;
        out.cost_formula = QStringLiteral("B·%1·d_model·d_out").arg(dQ.name);
        out.elementwise = config.has_output_bias ? B * T * d_out : 0;
    } else {
        add(Id::Output, Kind::Tensor, QStringLiteral("output"), QStringLiteral("Y = concat (no output projection)"),
            {dB, dQ, dOut});
    }
}

const ShapeStep* ShapeData::step(ShapeStep::Id id) const
{
    for (const ShapeStep& s : m_steps)
        if (s.id == id)
            return &s;
    return nullptr;
}

std::int64_t ShapeData::totalParameters() const
{
    std::int64_t total = 0;
    for (const ShapeStep& s : m_steps)
        total += s.parameters;
    return total;
}

std::int64_t ShapeData::totalMultiplyAdds() const
{
    std::int64_t total = 0;
    for (const ShapeStep& s : m_steps)
        total += s.multiply_adds;
    return total;
}

QString ShapeData::flopConvention()
{
    return QStringLiteral(
        "FLOPs = 2 × multiply-adds of the matrix products (X·W, Q·Kᵀ, A·V, concat·Wo); "
        "bias, scale, mask and softmax are not counted");
}

QString ShapeData::formatCount(std::int64_t value)
{
    QString digits = QString::number(value < 0 ? -value : value);
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return value < 0 ? QLatin1Char('-') + digits : digits;
}

QString ShapeData::formatCompact(std::int64_t value)
{
    const double v = double(value);
    const struct {
        double factor;
        const char* suffix;
    } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (const auto& u : units)
        if (std::abs(v) >= u.factor)
            return QStringLiteral("%1 %2").arg(QString::number(v / u.factor, 'g', 4), QLatin1String(u.suffix));
    return QString::number(value);
}

}  // namespace attn
