#pragma once

#include "core/base/Tensor.h"

#include <QString>

#include <optional>

namespace attn {

// The activation functions of transformers' ACT2FN table that the supported models
// use, each in transformers' own formula.
enum class Activation {
    Gelu,       // "gelu", "gelu_python": x/2 (1 + erf(x / sqrt 2)), exact
    GeluTanh,   // "gelu_new", "gelu_pytorch_tanh": x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    GeluFast,   // "gelu_fast": x/2 (1 + tanh(0.7978845608 x (1 + 0.044715 x^2)))
    QuickGelu,  // "quick_gelu": x sigmoid(1.702 x)
    Relu,       // "relu"
    Silu,       // "silu", "swish": x sigmoid(x)
    Tanh,       // "tanh"
    Sigmoid,    // "sigmoid"
    Linear,     // "linear": x
};

// The activation a config names, or nothing for a name outside the list above.
std::optional<Activation> activationFromName(const QString& name);
QString activationNames();  // the accepted names, for messages

// x = f(x), every entry.
void applyActivation(Activation activation, MatrixRef x);

}  // namespace attn
