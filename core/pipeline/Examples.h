#pragma once

#include "core/base/Result.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/RunSettings.h"
#include "core/weights/WeightFile.h"

#include <QString>

namespace attn {

struct AttentionResult;

// A ready-made computation offered from the Examples menu: its settings, its input rows and its
// weights, loaded from the shipped files (resources/examples).
struct Example {
    QString title;         // "Toy 4-dimensional attention"
    RunSettings config;    // weights from the file, scale and positions as the example needs
    AttentionInput input;  // the rows, labelled "0", "1", ...
    LoadedWeights weights;
};

class Examples {
public:
    // The 4-dimensional toy of the seed-style tutorial: toy-4d.json (one head, d_model 3, no
    // output projection) on the rows of toy-4d-input.npy (3 x 4), scores not scaled. Query 0
    // then has scores [2, 4, 4], weights [0.0634, 0.4683, 0.4683], output [1.9366, 6.6831, 1.5951].
    static QString toyTitle() { return QStringLiteral("Toy 4-dimensional attention"); }
    static Result<Example> toyFourDim(const QString& examples_dir);

    // The example's full computation (every intermediate kept, as the walkthrough needs).
    static Result<AttentionResult> run(const Example& example);
};

}  // namespace attn
