#pragma once

#include "core/attention/AttentionOptions.h"
#include "core/pipeline/SettingField.h"

#include <QList>
#include <QString>

#include <cstdint>
#include <optional>

namespace attn {

// What a user chooses: the settings panel of the window and the options of the command line.
struct RunSettings {
    enum class WeightSource { Random, Identity, File };

    static constexpr int kDefaultDModel = 512;
    static constexpr int kDefaultHeads = 8;
    static QString defaultSentence() { return QStringLiteral("The cat sat on the rug and it was dry-cleaned."); }

    int d_model = kDefaultDModel;
    int num_heads = kDefaultHeads;
    int input_dim = 0;  // 0: the same as d_model
    std::uint64_t seed = 0;
    WeightSource weight_source = WeightSource::Random;
    QString weights_file;
    int layer = 0;
    int file_num_heads = 0;  // with a weight file: heads to split into, 0 = what the file says
    bool causal = false;
    ScaleSetting scale;
    bool positional_encoding = true;
    // 0-based key positions masked as padding (PyTorch's key_padding_mask); checked against the
    // number of keys when the pass runs (AttentionPipeline::keyPadding).
    QList<int> padded_keys;

    int effectiveInputDim() const { return input_dim > 0 ? input_dim : d_model; }

    // Settings that change the weights (so the weights must be rebuilt or reloaded): the
    // dimensions, heads and seed of generated weights; the file, layer and heads of a file.
    bool sameWeightsAs(const RunSettings& other) const;

    // The first value that cannot work, before anything is built: a custom scale that is not a
    // finite positive number, heads that do not divide d_model, sizes that could not be
    // allocated. With a weight file the dimensions are the file's, checked when it is read.
    std::optional<SettingError> validate() const;

    bool operator==(const RunSettings&) const = default;
};

}  // namespace attn
