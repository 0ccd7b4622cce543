#include "core/pipeline/Examples.h"

#include "core/io/NpyReader.h"
#include "core/pipeline/AttentionResult.h"

#include <QDir>

namespace attn {

Result<Example> Examples::toyFourDim(const QString& examples_dir)
{
    const QDir dir(examples_dir);
    Example example;
    example.title = toyTitle();
    example.config.weight_source = RunSettings::WeightSource::File;
    example.config.weights_file = dir.filePath(QStringLiteral("toy-4d.json"));
    example.config.scale.mode = ScaleSetting::Mode::None;
    example.config.positional_encoding = false;  // the rows are given as they are

    auto weights = WeightFile::load(example.config.weights_file);
    if (!weights)
        return Error{weights.error()};
    const QString input_path = dir.filePath(QStringLiteral("toy-4d-input.npy"));
    auto x = NpyReader::readMatrixFile(input_path);  // (3, 4)
    if (!x)
        return Error{x.error()};
    if (x->cols() != weights->weights.inputDim())
        return Error{QStringLiteral("%1: the rows have %2 columns, %3 expects %4")
                         .arg(input_path)
                         .arg(x->cols())
                         .arg(example.config.weights_file)
                         .arg(weights->weights.inputDim())};
    auto input = AttentionPipeline::inputFromMatrix(std::move(x).value(), {});
    if (!input)
        return Error{QStringLiteral("%1: %2").arg(input_path, input.error())};

    example.config.d_model = weights->weights.dModel();
    example.config.num_heads = weights->weights.num_heads;
    example.config.input_dim = weights->weights.inputDim();
    example.input = std::move(input).value();
    example.weights = std::move(weights).value();
    return example;
}

Result<AttentionResult> Examples::run(const Example& example)
{
    return AttentionPipeline::run(example.config, example.input, example.weights, TraceDetail::Full);
}

}  // namespace attn
