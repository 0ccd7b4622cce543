#include "core/ops/Activation.h"

#include <QStringList>

#include <unsupported/Eigen/SpecialFunctions>

#include <cmath>
#include <cstdint>
#include <numbers>

namespace attn {
namespace {

struct NamedActivation {
    const char* name;
    Activation activation;
};

constexpr NamedActivation kNames[] = {
    {"gelu", Activation::Gelu},          {"gelu_python", Activation::Gelu},
    {"gelu_new", Activation::GeluTanh},  {"gelu_pytorch_tanh", Activation::GeluTanh},
    {"gelu_fast", Activation::GeluFast}, {"quick_gelu", Activation::QuickGelu},
    {"relu", Activation::Relu},          {"silu", Activation::Silu},
    {"swish", Activation::Silu},         {"tanh", Activation::Tanh},
    {"sigmoid", Activation::Sigmoid},    {"linear", Activation::Linear},
};

// One row at a time, as Eigen array expressions (vectorised: Eigen's float erf and tanh are
// rational approximations accurate to a few ulp).
template <typename Row>
void activateRow(Activation activation, Row row)
{
    auto x = row.array();
    constexpr float kSqrtHalf = float(std::numbers::sqrt2 / 2);
    const float kSqrtTwoOverPi = float(std::sqrt(2.0 / std::numbers::pi));
    switch (activation) {
        case Activation::Gelu:
            x = 0.5f * x * (1.0f + (x * kSqrtHalf).erf());
            break;
        case Activation::GeluTanh:
            x = 0.5f * x * (1.0f + (kSqrtTwoOverPi * (x + 0.044715f * x.cube())).tanh());
            break;
        case Activation::GeluFast:
            x = 0.5f * x * (1.0f + (x * 0.7978845608f * (1.0f + 0.044715f * x.square())).tanh());
            break;
        case Activation::QuickGelu:
            x = x * (1.0f / (1.0f + (-1.702f * x).exp()));
            break;
        case Activation::Relu:
            x = x.max(0.0f);
            break;
        case Activation::Silu:
            x = x * (1.0f / (1.0f + (-x).exp()));
            break;
        case Activation::Tanh:
            x = x.tanh();
            break;
        case Activation::Sigmoid:
            x = 1.0f / (1.0f + (-x).exp());
            break;
        case Activation::Linear:
            break;
    }
}

}  // namespace

std::optional<Activation> activationFromName(const QString& name)
{
    for (const NamedActivation& entry : kNames)
        if (name == QLatin1String(entry.name))
            return entry.activation;
    return std::nullopt;
}

QString activationNames()
{
    QStringList names;
    for (const NamedActivation& entry : kNames)
        names << QLatin1String(entry.name);
    return names.join(QStringLiteral(", "));
}

void applyActivation(Activation activation, MatrixRef x)
{
    if (activation == Activation::Linear)
        return;
    const bool parallel = std::int64_t(x.size()) >= (std::int64_t(1) << 16);
#pragma omp parallel for if (parallel) schedule(static)
    for (Eigen::Index r = 0; r < x.rows(); ++r)
        activateRow(activation, x.row(r));
}

}  // namespace attn
