#pragma once

#include <QString>

namespace attn {

// The settings a value can be refused for. Validation names the field, the window flags it in the
// settings panel and the command line names its option (--heads, --d-model, ...), so a message
// says only what is wrong with the value, never where it was typed.
// Model: a whole model's folder (--model DIR, File › Open model folder).
enum class SettingField { Sentence, DModel, Heads, InputDim, Seed, Weights, Layer, Scale, KvSentence, PadKeys, Model };

// A refused value: which setting, and why ("d_model 512 is not divisible by 7 heads").
struct SettingError {
    SettingField field;
    QString message;
};

}  // namespace attn
