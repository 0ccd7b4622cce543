#include "core/pipeline/RunSettings.h"

#include "core/attention/AttentionWeights.h"

#include <cmath>

namespace attn {

bool RunSettings::sameWeightsAs(const RunSettings& other) const
{
    if (weight_source != other.weight_source)
        return false;
    switch (weight_source) {
        case WeightSource::Random:
            return d_model == other.d_model && num_heads == other.num_heads &&
                   effectiveInputDim() == other.effectiveInputDim() && seed == other.seed;
        case WeightSource::Identity:
            return d_model == other.d_model && num_heads == other.num_heads &&
                   effectiveInputDim() == other.effectiveInputDim();
        case WeightSource::File:
            return weights_file == other.weights_file && layer == other.layer && file_num_heads == other.file_num_heads;
    }
    return false;
}

std::optional<SettingError> RunSettings::validate() const
{
    if (scale.mode == ScaleSetting::Mode::Custom && !(std::isfinite(scale.custom) && scale.custom > 0))
        return SettingError{SettingField::Scale, QStringLiteral("the scale must be a finite positive number")};
    if (weight_source == WeightSource::File) {
        if (weights_file.isEmpty())
            return SettingError{SettingField::Weights, QStringLiteral("no weight file is chosen")};
        if (layer < 0)
            return SettingError{SettingField::Layer,
                                QStringLiteral("the layer must be a non-negative integer, got %1").arg(layer)};
        if (file_num_heads < 0)
            return SettingError{
                SettingField::Heads,
                QStringLiteral("the number of heads must be a positive integer, got %1").arg(file_num_heads)};
        return std::nullopt;
    }
    if (num_heads <= 0)
        return SettingError{SettingField::Heads,
                            QStringLiteral("the number of heads must be a positive integer, got %1").arg(num_heads)};
    if (d_model <= 0)
        return SettingError{SettingField::DModel,
                            QStringLiteral("d_model must be a positive integer, got %1").arg(d_model)};
    if (input_dim < 0)
        return SettingError{SettingField::InputDim,
                            QStringLiteral("the input dimension must be a positive integer, got %1").arg(input_dim)};
    if (d_model % num_heads != 0)
        return SettingError{SettingField::Heads,
                            QStringLiteral("d_model %1 is not divisible by %2 heads").arg(d_model).arg(num_heads)};
    // What is left are the size limits: the larger of the two widths is the one to lower.
    if (Status fits = AttentionWeights::checkDimensions(effectiveInputDim(), d_model, num_heads); !fits)
        return SettingError{effectiveInputDim() > d_model ? SettingField::InputDim : SettingField::DModel,
                            fits.error()};
    return std::nullopt;
}

}  // namespace attn
