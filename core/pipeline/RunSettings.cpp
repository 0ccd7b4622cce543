#include "core/pipeline/RunSettings.h"

namespace attn {

bool RunSettings::sameWeightsAs(const RunSettings& other) const
{
    if (weight_source != other.weight_source || num_heads != other.num_heads)
        return false;
    switch (weight_source) {
        case WeightSource::Random:
            return d_model == other.d_model && effectiveInputDim() == other.effectiveInputDim() && seed == other.seed;
        case WeightSource::Identity:
            return d_model == other.d_model && effectiveInputDim() == other.effectiveInputDim();
        case WeightSource::File:
            return weights_file == other.weights_file && layer == other.layer;
    }
    return false;
}

}  // namespace attn
