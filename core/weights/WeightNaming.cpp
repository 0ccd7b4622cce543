#include "core/weights/WeightNaming.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace attn {
namespace {

// Looks tensors up by full name: their shapes first (from the file's headers, nothing read),
// then their values, checked for NaN and Inf. Messages name the tensor.
class TensorFetcher {
public:
    TensorFetcher(TensorSource& source, const QStringList& names)
        : m_source(source), m_names(names.begin(), names.end())
    {
    }

    bool has(const QString& name) const { return m_names.contains(name); }

    Result<Shape> shape(const QString& name)
    {
        if (!has(name))
            return Error{QStringLiteral("tensor '%1' is missing").arg(name)};
        return m_source.tensorShape(name);
    }

    // A matrix's stored shape: (rows, cols).
    Result<std::pair<std::int64_t, std::int64_t>> matrixShape(const QString& name)
    {
        auto dims = shape(name);
        if (!dims)
            return Error{dims.error()};
        if (dims->size() != 2)
            return Error{QStringLiteral("tensor '%1' has shape %2; expected a matrix (2 dimensions)")
                             .arg(name, shapeString(*dims))};
        return std::pair{(*dims)[0], (*dims)[1]};
    }

    Status checkVector(const QString& name, std::int64_t expected)
    {
        auto dims = shape(name);
        if (!dims)
            return Error{dims.error()};
        if (dims->size() != 1 || (*dims)[0] != expected)
            return Error{
                QStringLiteral("tensor '%1' has shape %2; expected (%3,)").arg(name, shapeString(*dims)).arg(expected)};
        return {};
    }

    // The values of a tensor whose shape has been checked: (rows, cols) for a matrix, (1, n) for a vector.
    Result<Matrix> read(const QString& name)
    {
        auto planned = m_source.tensorShape(name);
        auto array = m_source.readTensor(name);
        if (!array)
            return Error{array.error()};
        if (!planned || array->shape != *planned)  // the file changed since its shapes were checked
            return Error{QStringLiteral("tensor '%1' changed while it was being read").arg(name)};
        if (array->values.size() > 0 && !array->values.allFinite())
            return Error{QStringLiteral("tensor '%1' contains NaN or infinite values").arg(name)};
        return std::move(array).value().values;
    }

private:
    TensorSource& m_source;
    QSet<QString> m_names;
};

// The tensors of one attention layer and the dimensions their shapes give, all checked before
// any tensor is read.
struct LayerPlan {
    QStringList in_weights;        // one stored [Wq; Wk; Wv] (or [Wq | Wk | Wv]), or Wq, Wk, Wv apart
    bool in_torch_layout = true;   // (out, in) as torch nn.Linear; else (in, out) as GPT-2's Conv1D
    QStringList in_biases;         // one (3 * d_model) bias, or three (d_model) with "" where absent; or none
    QString out_weight, out_bias;  // empty when absent
    bool out_torch_layout = true;
    std::int64_t input_dim = 0;
    std::int64_t d_model = 0;
    std::int64_t output_dim = 0;  // 0 without an output projection
};

// A dimension the engine cannot take, refused from the shape before anything is read.
Status checkDimension(const QString& tensor, const std::pair<std::int64_t, std::int64_t>& shape, const char* what,
                      std::int64_t value)
{
    if (value <= WeightNaming::kMaxDimension)
        return {};
    return Error{QStringLiteral("tensor '%1' has shape %2: %3 %4 is above the limit of %5")
                     .arg(tensor, shapeString({shape.first, shape.second}), QLatin1String(what))
                     .arg(value)
                     .arg(WeightNaming::kMaxDimension)};
}

// The output projection from a stored (d_out, d_model) torch weight or (d_model, d_out) Conv1D.
Status planOutput(TensorFetcher& fetch, const QString& weight, const QString& bias, bool torch_layout, LayerPlan& plan)
{
    if (!fetch.has(weight)) {
        if (fetch.has(bias))
            return Error{QStringLiteral("tensor '%1' is present but '%2' is missing").arg(bias, weight)};
        return {};
    }
    auto m = fetch.matrixShape(weight);
    if (!m)
        return Error{m.error()};
    const auto [rows, cols] = *m;
    if ((torch_layout ? cols : rows) != plan.d_model)
        return Error{QStringLiteral("tensor '%1' has shape %2; expected %3 for d_model = %4")
                         .arg(weight, shapeString({rows, cols}),
                              torch_layout ? QStringLiteral("(d_out, %1)").arg(plan.d_model)
                                           : QStringLiteral("(%1, d_out)").arg(plan.d_model))
                         .arg(plan.d_model)};
    plan.output_dim = torch_layout ? rows : cols;
    if (plan.output_dim == 0)
        return Error{QStringLiteral("tensor '%1' has shape %2; the output dimension must be at least 1")
                         .arg(weight, shapeString({rows, cols}))};
    if (Status s = checkDimension(weight, *m, "output_dim", plan.output_dim); !s)
        return s;
    plan.out_weight = weight;
    plan.out_torch_layout = torch_layout;
    if (fetch.has(bias)) {
        if (Status s = fetch.checkVector(bias, plan.output_dim); !s)
            return s;
        plan.out_bias = bias;
    }
    return {};
}

// Three torch (d_model, input_dim) projections of the same shape.
Status planSeparate(TensorFetcher& fetch, const QString names[3], LayerPlan& plan)
{
    std::pair<std::int64_t, std::int64_t> first;
    for (int i = 0; i < 3; ++i) {
        if (!fetch.has(names[i]))
            return Error{QStringLiteral("tensor '%1' is missing (found '%2')").arg(names[i], names[0])};
        auto m = fetch.matrixShape(names[i]);
        if (!m)
            return Error{m.error()};
        if (i == 0)
            first = *m;
        else if (*m != first)
            return Error{
                QStringLiteral("tensor '%1' has shape %2 but '%3' has %4; the query, key and value projections "
                               "must have the same shape (grouped-query attention and kdim/vdim are not supported)")
                    .arg(names[i], shapeString({m->first, m->second}), names[0],
                         shapeString({first.first, first.second}))};
    }
    if (first.first == 0 || first.second == 0)
        return Error{QStringLiteral("tensor '%1' has shape %2; expected (d_model, input_dim), both at least 1")
                         .arg(names[0], shapeString({first.first, first.second}))};
    if (Status s = checkDimension(names[0], first, "d_model", first.first); !s)
        return s;
    if (Status s = checkDimension(names[0], first, "input_dim", first.second); !s)
        return s;
    plan.in_weights = {names[0], names[1], names[2]};
    plan.d_model = first.first;
    plan.input_dim = first.second;
    return {};
}

Status planMultiheadAttention(TensorFetcher& fetch, const QString& p, LayerPlan& plan)
{
    if (fetch.has(p + "bias_k") || fetch.has(p + "bias_v"))
        return Error{QStringLiteral("tensors '%1bias_k'/'%1bias_v' (add_bias_kv) are not supported").arg(p)};
    const QString inProj = p + "in_proj_weight";
    if (fetch.has(inProj)) {
        auto m = fetch.matrixShape(inProj);  // (3 * d_model, input_dim)
        if (!m)
            return Error{m.error()};
        const auto [rows, cols] = *m;
        if (rows == 0 || rows % 3 != 0 || cols == 0)
            return Error{
                QStringLiteral(
                    "tensor '%1' has shape %2; expected (3 * embed_dim, input_dim), a first dimension divisible by 3")
                    .arg(inProj, shapeString({rows, cols}))};
        if (Status s = checkDimension(inProj, *m, "embed_dim", rows / 3); !s)
            return s;
        if (Status s = checkDimension(inProj, *m, "input_dim", cols); !s)
            return s;
        plan.in_weights = {inProj};
        plan.d_model = rows / 3;
        plan.input_dim = cols;
    } else {
        const QString names[3] = {p + "q_proj_weight", p + "k_proj_weight", p + "v_proj_weight"};
        if (Status s = planSeparate(fetch, names, plan); !s)
            return s;
    }
    const QString bias = p + "in_proj_bias";
    if (fetch.has(bias)) {
        if (Status s = fetch.checkVector(bias, 3 * plan.d_model); !s)
            return s;
        plan.in_biases = {bias};
    }
    return planOutput(fetch, p + "out_proj.weight", p + "out_proj.bias", true, plan);
}

Status planSeparateProjections(TensorFetcher& fetch, const QString& p, LayerPlan& plan)
{
    const QString names[3] = {p + "q_proj.weight", p + "k_proj.weight", p + "v_proj.weight"};
    if (Status s = planSeparate(fetch, names, plan); !s)
        return s;
    QStringList biases;
    for (const char* suffix : {"q_proj.bias", "k_proj.bias", "v_proj.bias"}) {
        const QString name = p + QLatin1String(suffix);
        if (!fetch.has(name)) {
            biases << QString();  // zero when another of the three is present
            continue;
        }
        if (Status s = fetch.checkVector(name, plan.d_model); !s)
            return s;
        biases << name;
    }
    if (biases != QStringList{QString(), QString(), QString()})
        plan.in_biases = biases;
    const bool out = fetch.has(p + "out_proj.weight");
    const bool o = fetch.has(p + "o_proj.weight");
    if (out && o)
        return Error{
            QStringLiteral(
                "both '%1out_proj.weight' and '%1o_proj.weight' are present; the output projection is ambiguous")
                .arg(p)};
    const QString stem = p + (o ? "o_proj" : "out_proj");
    return planOutput(fetch, stem + ".weight", stem + ".bias", true, plan);
}

Status planGpt2(TensorFetcher& fetch, const QString& p, LayerPlan& plan)
{
    const QString name = p + "c_attn.weight";
    auto m = fetch.matrixShape(name);  // Conv1D: (input_dim, 3 * d_model), math layout already
    if (!m)
        return Error{m.error()};
    const auto [rows, cols] = *m;
    if (cols == 0 || cols % 3 != 0 || rows == 0)
        return Error{
            QStringLiteral(
                "tensor '%1' has shape %2; expected (embed_dim, 3 * embed_dim), a second dimension divisible by 3")
                .arg(name, shapeString({rows, cols}))};
    if (Status s = checkDimension(name, *m, "input_dim", rows); !s)
        return s;
    if (Status s = checkDimension(name, *m, "embed_dim", cols / 3); !s)
        return s;
    plan.in_weights = {name};
    plan.in_torch_layout = false;
    plan.input_dim = rows;
    plan.d_model = cols / 3;
    const QString bias = p + "c_attn.bias";
    if (fetch.has(bias)) {
        if (Status s = fetch.checkVector(bias, 3 * plan.d_model); !s)
            return s;
        plan.in_biases = {bias};
    }
    return planOutput(fetch, p + "c_proj.weight", p + "c_proj.bias", false, plan);
}

// The parameter limit of AttentionWeights, from the planned shapes (every dimension is at most
// kMaxDimension here, so no product overflows).
Status checkParameterCount(const LayerPlan& plan)
{
    const std::int64_t projections = plan.input_dim * 3 * plan.d_model;
    const std::int64_t output = plan.d_model * std::max(plan.d_model, plan.output_dim);
    if (projections + output <= WeightNaming::kMaxParameters)
        return {};
    return Error{QStringLiteral("input_dim %1, d_model %2 and output_dim %3 make %4 parameters, over the limit of %5")
                     .arg(plan.input_dim)
                     .arg(plan.d_model)
                     .arg(plan.output_dim ? plan.output_dim : plan.d_model)
                     .arg(projections + output)
                     .arg(WeightNaming::kMaxParameters)};
}

// Reads what the plan names into math layout.
Status readPlanned(TensorFetcher& fetch, const LayerPlan& plan, AttentionWeights& w)
{
    const Eigen::Index d_model = plan.d_model;
    if (plan.in_weights.size() == 1) {
        auto m = fetch.read(plan.in_weights[0]);
        if (!m)
            return Error{m.error()};
        w.in_proj = plan.in_torch_layout ? Matrix(m->transpose()) : std::move(m).value();  // (input_dim, 3 * d_model)
    } else {
        Matrix parts[3];  // torch layout (d_model, input_dim)
        for (int i = 0; i < 3; ++i) {
            auto m = fetch.read(plan.in_weights[i]);
            if (!m)
                return Error{m.error()};
            parts[i] = std::move(m).value();
        }
        w.in_proj.resize(plan.input_dim, 3 * d_model);  // (input_dim, 3 * d_model)
        w.in_proj << parts[0].transpose(), parts[1].transpose(), parts[2].transpose();
    }

    if (plan.in_biases.size() == 1) {
        auto b = fetch.read(plan.in_biases[0]);  // (1, 3 * d_model)
        if (!b)
            return Error{b.error()};
        w.in_bias = RowVector(*b);
    } else if (plan.in_biases.size() == 3) {
        w.in_bias = RowVector::Zero(3 * d_model);  // (3 * d_model): [bq | bk | bv], zero where absent
        for (int i = 0; i < 3; ++i) {
            if (plan.in_biases[i].isEmpty())
                continue;
            auto b = fetch.read(plan.in_biases[i]);  // (1, d_model)
            if (!b)
                return Error{b.error()};
            w.in_bias.segment(i * d_model, d_model) = RowVector(*b);
        }
    }

    if (!plan.out_weight.isEmpty()) {
        auto m = fetch.read(plan.out_weight);
        if (!m)
            return Error{m.error()};
        w.out_proj = plan.out_torch_layout ? Matrix(m->transpose()) : std::move(m).value();  // (d_model, d_out)
    }
    if (!plan.out_bias.isEmpty()) {
        auto b = fetch.read(plan.out_bias);  // (1, d_out)
        if (!b)
            return Error{b.error()};
        w.out_bias = RowVector(*b);
    }
    return {};
}

QString describeNames(const QStringList& names)
{
    if (names.isEmpty())
        return QStringLiteral("the file holds no arrays");
    const int shown = 8;
    QString list = QStringList(names.mid(0, shown)).join(QStringLiteral(", "));
    if (names.size() > shown)
        list += QStringLiteral(" and %1 more").arg(names.size() - shown);
    return QStringLiteral("the file holds: ") + list;
}

}  // namespace

QString WeightNaming::schemeName(Scheme scheme)
{
    switch (scheme) {
        case Scheme::MultiheadAttention:
            return QStringLiteral("nn.MultiheadAttention");
        case Scheme::SeparateProjections:
            return QStringLiteral("q_proj/k_proj/v_proj");
        case Scheme::Gpt2:
            return QStringLiteral("gpt2");
    }
    return {};
}

bool WeightNaming::naturalLess(const QString& a, const QString& b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype ei = i, ej = j;
            while (ei < a.size() && a[ei].isDigit())
                ++ei;
            while (ej < b.size() && b[ej].isDigit())
                ++ej;
            // Compare the digit runs as numbers: skip leading zeros, then length, then digits.
            QStringView da = QStringView(a).sliced(i, ei - i), db = QStringView(b).sliced(j, ej - j);
            while (da.size() > 1 && da.front() == u'0')
                da = da.sliced(1);
            while (db.size() > 1 && db.front() == u'0')
                db = db.sliced(1);
            if (da.size() != db.size())
                return da.size() < db.size();
            if (const int c = da.compare(db); c != 0)
                return c < 0;
            i = ei;
            j = ej;
            continue;
        }
        if (a[i] != b[j])
            return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

std::vector<WeightNaming::Layer> WeightNaming::findLayers(const QStringList& names)
{
    const QRegularExpression gpt2(QStringLiteral("^((?:transformer\\.)?h\\.\\d+\\.attn\\.)c_attn\\.weight$"));
    std::vector<Layer> layers;
    QSet<QString> seen;
    auto add = [&](const QString& prefix, Scheme scheme) {
        if (!seen.contains(prefix)) {
            seen.insert(prefix);
            layers.push_back({prefix, scheme});
        }
    };
    // A name ending in `suffix` right after a '.' (or being exactly `suffix`) gives a prefix.
    auto prefixOf = [](const QString& name, QLatin1String suffix) -> std::optional<QString> {
        if (!name.endsWith(suffix))
            return std::nullopt;
        const QString prefix = name.chopped(suffix.size());
        if (!prefix.isEmpty() && !prefix.endsWith(u'.'))
            return std::nullopt;
        return prefix;
    };
    for (const QString& name : names) {
        if (const auto match = gpt2.match(name); match.hasMatch())
            add(match.captured(1), Scheme::Gpt2);
        else if (auto p = prefixOf(name, QLatin1String("in_proj_weight")))
            add(*p, Scheme::MultiheadAttention);
        else if (auto p = prefixOf(name, QLatin1String("q_proj_weight")))
            add(*p, Scheme::MultiheadAttention);
    }
    for (const QString& name : names)  // after scheme 1, which wins for the same prefix
        if (auto p = prefixOf(name, QLatin1String("q_proj.weight")))
            add(*p, Scheme::SeparateProjections);
    std::sort(layers.begin(), layers.end(),
              [](const Layer& a, const Layer& b) { return naturalLess(a.prefix, b.prefix); });
    return layers;
}

Result<LoadedWeights> WeightNaming::build(TensorSource& source, const WeightFileOptions& options)
{
    const QStringList names = source.tensorNames();
    const std::vector<Layer> layers = findLayers(names);
    if (layers.empty())
        return Error{QStringLiteral("no attention weights found: expected nn.MultiheadAttention names (in_proj_weight, "
                                    "out_proj.weight, ...), q_proj.weight/k_proj.weight/v_proj.weight or GPT-2's "
                                    "h.N.attn.c_attn.weight; %1")
                         .arg(describeNames(names))};
    const int count = int(layers.size());
    if (options.layer < 0 || options.layer >= count)
        return Error{QStringLiteral("layer %1 is out of range: the file holds %2 attention layer%3 (%4)")
                         .arg(options.layer)
                         .arg(count)
                         .arg(count == 1 ? "" : "s")
                         .arg(count == 1 ? QStringLiteral("layer 0") : QStringLiteral("layers 0..%1").arg(count - 1))};
    const Layer& layer = layers[size_t(options.layer)];

    TensorFetcher fetch(source, names);
    LayerPlan plan;
    Status planned;
    switch (layer.scheme) {
        case Scheme::MultiheadAttention:
            planned = planMultiheadAttention(fetch, layer.prefix, plan);
            break;
        case Scheme::SeparateProjections:
            planned = planSeparateProjections(fetch, layer.prefix, plan);
            break;
        case Scheme::Gpt2:
            planned = planGpt2(fetch, layer.prefix, plan);
            break;
    }
    if (!planned)
        return Error{planned.error()};
    if (Status s = checkParameterCount(plan); !s)
        return Error{s.error()};
    AttentionWeights w;
    if (Status read = readPlanned(fetch, plan, w); !read)
        return Error{read.error()};

    if (options.num_heads > 0) {
        w.num_heads = options.num_heads;
    } else {
        auto declared = source.declaredNumHeads();
        if (!declared)
            return Error{declared.error()};
        if (!declared->has_value())
            return Error{QStringLiteral("the number of heads is not known: none was chosen and the file states none "
                                        "(%1)")
                             .arg(source.numHeadsHint())};
        w.num_heads = **declared;
    }
    if (Status valid = w.validate(); !valid)
        return Error{valid.error()};

    LoadedWeights loaded;
    loaded.weights = std::move(w);
    loaded.layer_count = count;
    loaded.scheme = schemeName(layer.scheme);
    loaded.tensor_prefix = layer.prefix;
    return loaded;
}

}  // namespace attn
