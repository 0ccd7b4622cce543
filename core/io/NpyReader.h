#pragma once

// NumPy .npy files (numpy.lib.format), as read here:
//   1. Magic: the 6 bytes "\x93NUMPY", then the major and minor version bytes: 1.0, 2.0 or 3.0.
//   2. Header length: little-endian u16 (version 1.0) or u32 (2.0 and 3.0), at most 64 KiB here.
//   3. Header: a Python dict literal (latin-1; UTF-8 in 3.0) with exactly the keys 'descr' (the
//      dtype: byte order '<' little, '>' big, '|' or '=' native, kind and item size, e.g. '<f4'),
//      'fortran_order' (True or False) and 'shape' (a tuple of non-negative ints, () for a 0-d
//      scalar), padded with spaces and ended by '\n'.
//   4. Data: product(shape) items back to back, in C order (last index fastest) or, with
//      fortran_order True, in Fortran order (first index fastest), up to the end of the file.
// Read as weights: float16, float32 and float64 ('f2', 'f4', 'f8') in either byte order, converted
// to float32 in C order. Integers are read only as single values (readInteger, for num_heads).
// The data must be exactly product(shape) * item size bytes: a truncated file or trailing bytes
// are errors, and nothing is allocated before that has been checked; an array of more than
// TensorSource::kMaxTensorElements elements is refused from its header. A file on disk has its
// header checked before the rest of it is read or mapped.

#include "core/base/Result.h"
#include "core/base/Tensor.h"
#include "core/io/TensorSource.h"

#include <QByteArrayView>
#include <QString>

namespace attn {

struct NpyHeader {
    int major_version = 1;
    QString descr;            // as written, e.g. "<f4"
    char kind = 'f';          // 'f' float, 'i' signed, 'u' unsigned, 'b' bool
    int item_size = 4;        // bytes per item
    bool big_endian = false;  // after resolving '|' and '=' to this machine's order
    bool fortran_order = false;
    Shape shape;
    qint64 data_offset = 0;  // bytes from the start of the file to the first item
};

class NpyReader {
public:
    static constexpr qint64 kMaxHeaderBytes = 65536;

    // The header of a .npy held in `bytes` (which may be only the first part of the file).
    static Result<NpyHeader> parseHeader(QByteArrayView bytes);
    // A whole .npy in memory: float16/32/64 only. Messages are reasons without a file name.
    static Result<TensorArray> read(QByteArrayView bytes);
    // A whole .npy in memory holding one value (0-d or one element) of an integer type, or a
    // float with an integral value; for keys such as num_heads.
    static Result<std::int64_t> readInteger(QByteArrayView bytes);

    // A .npy file on disk; messages start with the file name ("x.npy: ...").
    static Result<TensorArray> readFile(const QString& path);
    // The same, for --input: a 2-D (rows, cols) array with at least one row and one column.
    static Result<Matrix> readMatrixFile(const QString& path);

private:
    // readFile, refusing before the data is read what `accept` (when given) refuses of the header.
    static Result<TensorArray> readFileAs(const QString& path, Status (*accept)(const NpyHeader&));
};

}  // namespace attn
