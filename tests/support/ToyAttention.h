#pragma once

// The 4-dimensional toy of the seed-style tutorial, built in code so the tests do not depend on
// the example files: one head, no biases, no output projection, x (3 x 4), scale 1.
//   Q = X Wq = [[1,0,2],[2,2,2],[2,1,3]], K = X Wk = [[0,1,1],[4,4,0],[2,3,1]],
//   V = X Wv = [[1,2,3],[2,8,0],[2,6,3]]; scores row 0 = [2, 4, 4].

#include "core/attention/AttentionWeights.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"

#include <QTest>

namespace attn::test {

inline Matrix matrix(std::initializer_list<std::initializer_list<float>> rows)
{
    Matrix m(int(rows.size()), int(rows.begin()->size()));  // (rows, columns)
    int r = 0;
    for (const auto& row : rows) {
        int c = 0;
        for (float value : row)
            m(r, c++) = value;
        ++r;
    }
    return m;
}

inline AttentionResult toyResult(bool causal = false)
{
    auto weights = AttentionWeights::fromParts(1, matrix({{1, 0, 1}, {1, 0, 0}, {0, 0, 1}, {0, 1, 1}}),  // wq (4, 3)
                                               matrix({{0, 0, 1}, {1, 1, 0}, {0, 1, 0}, {1, 1, 0}}),     // wk (4, 3)
                                               matrix({{0, 2, 0}, {0, 3, 0}, {1, 0, 3}, {1, 1, 0}}),     // wv (4, 3)
                                               {}, {}, {}, {}, {});
    if (!weights)
        qFatal("toy weights: %s", qPrintable(weights.error()));
    auto input = AttentionPipeline::inputFromMatrix(matrix({{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}}), {});
    if (!input)
        qFatal("toy input: %s", qPrintable(input.error()));
    RunSettings config;
    config.d_model = 3;
    config.num_heads = 1;
    config.input_dim = 4;
    config.positional_encoding = false;
    config.causal = causal;
    config.scale.mode = ScaleSetting::Mode::None;
    auto result =
        AttentionPipeline::run(config, std::move(input).value(),
                               LoadedWeights{std::move(weights).value(), 1, QStringLiteral("json")}, TraceDetail::Full);
    if (!result)
        qFatal("toy run: %s", qPrintable(result.error()));
    return std::move(result).value();
}

// A small random-weight result from a sentence, with the full trace.
inline AttentionResult sentenceResult(int d_model, int num_heads, int input_dim = 0, bool causal = false,
                                      const QString& sentence = RunSettings::defaultSentence())
{
    RunSettings config;
    config.d_model = d_model;
    config.num_heads = num_heads;
    config.input_dim = input_dim;
    config.causal = causal;
    auto result = AttentionPipeline::run(config, sentence, TraceDetail::Full);
    if (!result)
        qFatal("sentence run: %s", qPrintable(result.error()));
    return std::move(result).value();
}

}  // namespace attn::test
