#pragma once

#include "core/base/Result.h"
#include "core/base/Tensor.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace attn {

using Shape = std::vector<std::int64_t>;  // dimensions as a file stores them; {} for a 0-d scalar

// Product of the dimensions, or nothing when it overflows 64 bits (or a dimension is negative).
std::optional<std::int64_t> elementCount(const Shape& shape);
// Nothing when `shape` has at most TensorSource::kMaxTensorElements elements, else the reason.
std::optional<QString> tensorSizeProblem(const Shape& shape);
// "(3, 4)", "(3,)" or "()", as numpy prints shapes.
QString shapeString(const Shape& shape);

// `message` with every control character (a newline inside a tensor name, say) written as \xNN,
// so that a refusal naming what a file holds stays one line.
QString singleLine(const QString& message);

// A number of heads stated by a file: a positive integer of at most 65536 ("8" or 8).
Result<int> parseNumHeads(const QString& text);
Result<int> checkNumHeads(std::int64_t value);

// One array read from a weight file, converted to float32.
struct TensorArray {
    Shape shape;
    // C order. 0-d: (1, 1); 1-d (n): (1, n); 2-d (r, c): (r, c); n-d (a, b, ...): (a, b * ...).
    Matrix values;

    // The Matrix layout above for a shape whose element count is known not to overflow.
    static std::pair<Eigen::Index, Eigen::Index> matrixDims(const Shape& shape);
};

// A file of named arrays (safetensors, npz). Messages are reasons only: WeightFile puts the file
// name in front.
class TensorSource {
public:
    // The most elements one array may have to be read (4 GiB as float32), checked against its
    // shape before anything is read or allocated. Callers that know tighter limits (the
    // dimensions of an attention layer) check those on tensorShape() first.
    static constexpr std::int64_t kMaxTensorElements = std::int64_t(1) << 30;

    virtual ~TensorSource() = default;

    // Every array in the file, in the file's order, whatever its type.
    virtual QStringList tensorNames() const = 0;
    // An array's shape from the file's headers alone: nothing of its data is read or allocated.
    virtual Result<Shape> tensorShape(const QString& name) = 0;
    // A floating-point array converted to float32; other types are an error.
    virtual Result<TensorArray> readTensor(const QString& name) = 0;
    // The number of heads the file itself states: nothing when it states none, an error when it
    // states something that is not a positive integer.
    virtual Result<std::optional<int>> declaredNumHeads() = 0;
    // Where this kind of file keeps num_heads, for the message when it is missing.
    virtual QString numHeadsHint() const = 0;
};

}  // namespace attn
