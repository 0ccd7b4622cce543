#pragma once

// Writes float32 arrays as NumPy .npy (numpy.lib.format version 1.0), byte for byte as
// numpy.save writes them:
//   1. "\x93NUMPY", version bytes 1 and 0.
//   2. Header length, little-endian u16.
//   3. Header "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", then as many spaces
//      as numpy adds for in-place growth of the first axis (21 - digits of shape[0]), then spaces
//      and '\n' so that the data starts at a multiple of 64 bytes.
//   4. The values in C order, little-endian float32.

#include "core/base/Result.h"
#include "core/base/Tensor.h"
#include "core/io/TensorSource.h"

#include <QByteArray>
#include <QIODevice>

#include <span>
#include <vector>

namespace attn {

class NpyWriter {
public:
    // `values` holds product(shape) floats in C order.
    static Result<QByteArray> encode(std::span<const float> values, const Shape& shape);
    // A (rows, cols) matrix.
    static QByteArray encode(const Matrix& matrix);
    // A stack of equally shaped matrices as one (count, rows, cols) array, e.g. the attention
    // weights of every head: (num_heads, query_len, key_len).
    static Result<QByteArray> encode(const std::vector<Matrix>& stack);

    // The pieces, for a file written a part at a time: its header (it holds `shape`), then the
    // values in C order, appended as they come.
    static QByteArray header(const Shape& shape);
    static void appendValues(QByteArray& out, const float* values, qsizetype count);

    // Writes encoded bytes to an open device; the message names the device's error.
    static Status write(QIODevice& device, const QByteArray& npy);
    // Writes encoded bytes to `path` atomically (a temporary file renamed into place): on failure
    // nothing is left behind. Messages start with the file name.
    static Status writeFile(const QString& path, const QByteArray& npy);
};

}  // namespace attn
