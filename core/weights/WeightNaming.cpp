#include "core/weights/WeightNaming.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace attn {
namespace {

// Reads tensors by full name and checks their rank and values, naming the tensor on failure.
class TensorFetcher {
public:
    TensorFetcher(TensorSource& source, const QStringList& names)
        : m_source(source), m_names(names.begin(), names.end())
    {
    }

    bool has(const QString& name) const { return m_names.contains(name); }

    Result<Matrix> matrix(const QString& name)  // as stored: (rows, cols)
    {
        auto array = fetch(name);
        if (!array)
            return Error{array.error()};
        if (array->shape.size() != 2)
            return Error{QStringLiteral("tensor '%1' has shape %2; expected a matrix (2 dimensions)")
                             .arg(name, shapeString(array->shape))};
        return std::move(array).value().values;
    }

    Result<RowVector> vector(const QString& name, Eigen::Index expected)
    {
        auto array = fetch(name);
        if (!array)
            return Error{array.error()};
        if (array->shape.size() != 1 || array->shape[0] != expected)
            return Error{QStringLiteral("tensor '%1' has shape %2; expected (%3,)")
                             .arg(name, shapeString(array->shape))
                             .arg(expected)};
        return RowVector(array->values);
    }

    // An optional bias: empty when the file has none.
    Result<RowVector> optionalVector(const QString& name, Eigen::Index expected)
    {
        if (!has(name))
            return RowVector();
        return vector(name, expected);
    }

private:
    Result<TensorArray> fetch(const QString& name)
    {
        if (!has(name))
            return Error{QStringLiteral("tensor '%1' is missing").arg(name)};
        auto array = m_source.readTensor(name);
        if (!array)
            return Error{array.error()};
        if (array->values.size() > 0 && !array->values.allFinite())
            return Error{QStringLiteral("tensor '%1' contains NaN or infinite values").arg(name)};
        return array;
    }

    TensorSource& m_source;
    QSet<QString> m_names;
};

QString shapeOf(const Matrix& m)
{
    return shapeString({m.rows(), m.cols()});
}

// The output projection from a stored (d_out, d_model) torch weight or (d_model, d_out) Conv1D.
Status readOutput(TensorFetcher& fetch, const QString& weight, const QString& bias, bool torch_layout,
                  Eigen::Index d_model, AttentionWeights& w)
{
    if (!fetch.has(weight)) {
        if (fetch.has(bias))
            return Error{QStringLiteral("tensor '%1' is present but '%2' is missing").arg(bias, weight)};
        return {};
    }
    auto m = fetch.matrix(weight);
    if (!m)
        return Error{m.error()};
    if ((torch_layout ? m->cols() : m->rows()) != d_model)
        return Error{QStringLiteral("tensor '%1' has shape %2; expected %3 for d_model = %4")
                         .arg(weight, shapeOf(*m),
                              torch_layout ? QStringLiteral("(d_out, %1)").arg(d_model)
                                           : QStringLiteral("(%1, d_out)").arg(d_model))
                         .arg(d_model)};
    w.out_proj = torch_layout ? Matrix(m->transpose()) : std::move(m).value();  // (d_model, d_out)
    auto b = fetch.optionalVector(bias, w.out_proj.cols());
    if (!b)
        return Error{b.error()};
    w.out_bias = std::move(b).value();
    return {};
}

// Three torch (d_model, input_dim) projections side by side as (input_dim, 3 * d_model).
Status readSeparate(TensorFetcher& fetch, const QString names[3], AttentionWeights& w)
{
    Matrix parts[3];  // torch layout (d_model, input_dim)
    for (int i = 0; i < 3; ++i) {
        if (!fetch.has(names[i]))
            return Error{QStringLiteral("tensor '%1' is missing (found '%2')").arg(names[i], names[0])};
        auto m = fetch.matrix(names[i]);
        if (!m)
            return Error{m.error()};
        parts[i] = std::move(m).value();
        if (i > 0 && (parts[i].rows() != parts[0].rows() || parts[i].cols() != parts[0].cols()))
            return Error{
                QStringLiteral("tensor '%1' has shape %2 but '%3' has %4; the query, key and value projections "
                               "must have the same shape (grouped-query attention and kdim/vdim are not supported)")
                    .arg(names[i], shapeOf(parts[i]), names[0], shapeOf(parts[0]))};
    }
    w.in_proj.resize(parts[0].cols(), 3 * parts[0].rows());  // (input_dim, 3 * d_model)
    w.in_proj << parts[0].transpose(), parts[1].transpose(), parts[2].transpose();
    return {};
}

Status buildMultiheadAttention(TensorFetcher& fetch, const QString& p, AttentionWeights& w)
{
    if (fetch.has(p + "bias_k") || fetch.has(p + "bias_v"))
        return Error{QStringLiteral("tensors '%1bias_k'/'%1bias_v' (add_bias_kv) are not supported").arg(p)};
    const QString inProj = p + "in_proj_weight";
    if (fetch.has(inProj)) {
        auto m = fetch.matrix(inProj);  // (3 * d_model, input_dim)
        if (!m)
            return Error{m.error()};
        if (m->rows() == 0 || m->rows() % 3 != 0 || m->cols() == 0)
            return Error{
                QStringLiteral(
                    "tensor '%1' has shape %2; expected (3 * embed_dim, input_dim), a first dimension divisible by 3")
                    .arg(inProj, shapeOf(*m))};
        w.in_proj = m->transpose();
    } else {
        const QString names[3] = {p + "q_proj_weight", p + "k_proj_weight", p + "v_proj_weight"};
        if (Status s = readSeparate(fetch, names, w); !s)
            return s;
    }
    auto bias = fetch.optionalVector(p + "in_proj_bias", w.in_proj.cols());
    if (!bias)
        return Error{bias.error()};
    w.in_bias = std::move(bias).value();
    return readOutput(fetch, p + "out_proj.weight", p + "out_proj.bias", true, w.in_proj.cols() / 3, w);
}

Status buildSeparate(TensorFetcher& fetch, const QString& p, AttentionWeights& w)
{
    const QString names[3] = {p + "q_proj.weight", p + "k_proj.weight", p + "v_proj.weight"};
    if (Status s = readSeparate(fetch, names, w); !s)
        return s;
    const Eigen::Index d_model = w.in_proj.cols() / 3;
    RowVector biases[3];  // (d_model) each, or empty
    bool anyBias = false;
    const char* biasNames[3] = {"q_proj.bias", "k_proj.bias", "v_proj.bias"};
    for (int i = 0; i < 3; ++i) {
        auto b = fetch.optionalVector(p + QLatin1String(biasNames[i]), d_model);
        if (!b)
            return Error{b.error()};
        biases[i] = std::move(b).value();
        anyBias = anyBias || biases[i].size() > 0;
    }
    if (anyBias) {
        w.in_bias.resize(3 * d_model);
        for (int i = 0; i < 3; ++i)
            w.in_bias.segment(i * d_model, d_model) = biases[i].size() ? biases[i] : RowVector::Zero(d_model);
    }
    const bool out = fetch.has(p + "out_proj.weight");
    const bool o = fetch.has(p + "o_proj.weight");
    if (out && o)
        return Error{
            QStringLiteral(
                "both '%1out_proj.weight' and '%1o_proj.weight' are present; the output projection is ambiguous")
                .arg(p)};
    const QString stem = p + (o ? "o_proj" : "out_proj");
    return readOutput(fetch, stem + ".weight", stem + ".bias", true, d_model, w);
}

Status buildGpt2(TensorFetcher& fetch, const QString& p, AttentionWeights& w)
{
    const QString name = p + "c_attn.weight";
    auto m = fetch.matrix(name);  // Conv1D: (input_dim, 3 * d_model), math layout already
    if (!m)
        return Error{m.error()};
    if (m->cols() == 0 || m->cols() % 3 != 0 || m->rows() == 0)
        return Error{
            QStringLiteral(
                "tensor '%1' has shape %2; expected (embed_dim, 3 * embed_dim), a second dimension divisible by 3")
                .arg(name, shapeOf(*m))};
    w.in_proj = std::move(m).value();
    auto bias = fetch.optionalVector(p + "c_attn.bias", w.in_proj.cols());
    if (!bias)
        return Error{bias.error()};
    w.in_bias = std::move(bias).value();
    return readOutput(fetch, p + "c_proj.weight", p + "c_proj.bias", false, w.in_proj.cols() / 3, w);
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
    AttentionWeights w;
    Status built;
    switch (layer.scheme) {
        case Scheme::MultiheadAttention:
            built = buildMultiheadAttention(fetch, layer.prefix, w);
            break;
        case Scheme::SeparateProjections:
            built = buildSeparate(fetch, layer.prefix, w);
            break;
        case Scheme::Gpt2:
            built = buildGpt2(fetch, layer.prefix, w);
            break;
    }
    if (!built)
        return Error{built.error()};

    if (options.num_heads > 0) {
        w.num_heads = options.num_heads;
    } else {
        auto declared = source.declaredNumHeads();
        if (!declared)
            return Error{declared.error()};
        if (!declared->has_value())
            return Error{QStringLiteral("the number of heads is not known: it was not given (--heads N) and the file "
                                        "states none (%1)")
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
