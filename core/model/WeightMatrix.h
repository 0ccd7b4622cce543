#pragma once

#include "core/base/Tensor.h"
#include "core/ops/Linear.h"
#include "core/ops/TileWeights.h"

#include <QString>

#include <atomic>
#include <memory>

namespace attn {

// A weight matrix of a model in the layout the forward pass multiplies with, either read in place
// from the memory-mapped file (an F32 tensor already stored in that layout) or converted into
// memory of its own (F16/BF16, or an nn.Linear weight that had to be transposed). A converted
// matrix whose values are all bfloat16 may move into the tile layout (moveIntoTiles()).
class WeightMatrix {
public:
    WeightMatrix() = default;
    // The owned buffer moves with its pointer.
    WeightMatrix(WeightMatrix&& other) noexcept { *this = std::move(other); }
    WeightMatrix& operator=(WeightMatrix&& other) noexcept
    {
        m_name = std::move(other.m_name);
        m_owned = std::move(other.m_owned);
        m_tiles = std::move(other.m_tiles);
        m_data = other.m_data;
        m_rows = other.m_rows;
        m_cols = other.m_cols;
        m_checked.store(other.m_checked.load());
        return *this;
    }
    WeightMatrix(const WeightMatrix&) = delete;
    WeightMatrix& operator=(const WeightMatrix&) = delete;

    // `data` (rows, cols), row-major, must outlive this object (the mapped file does).
    static WeightMatrix inPlace(QString name, const float* data, Eigen::Index rows, Eigen::Index cols)
    {
        WeightMatrix w;
        w.m_name = std::move(name);
        w.m_data = data;
        w.m_rows = rows;
        w.m_cols = cols;
        return w;
    }
    static WeightMatrix owned(QString name, Matrix values)
    {
        WeightMatrix w;
        w.m_name = std::move(name);
        w.m_owned = std::move(values);
        w.m_data = w.m_owned.data();
        w.m_rows = w.m_owned.rows();
        w.m_cols = w.m_owned.cols();
        w.m_checked = true;  // converted weights are checked as they are converted
        return w;
    }

    // The float32 values; not for a matrix moved into tiles (hasValues() false), which only
    // multiply() reads.
    Eigen::Map<const Matrix> view() const { return {m_data, m_rows, m_cols}; }
    bool hasValues() const { return m_data != nullptr || isEmpty(); }
    // The values as a matrix of their own: the converted buffer moved out, in-place ones copied.
    Matrix takeValues() &&
    {
        if (!isInPlace())
            return std::move(m_owned);
        return Matrix(view());
    }
    Eigen::Index rows() const { return m_rows; }
    Eigen::Index cols() const { return m_cols; }
    bool isEmpty() const { return m_rows * m_cols == 0; }
    bool isInPlace() const { return m_data != nullptr && m_owned.size() == 0; }
    const QString& name() const { return m_name; }  // the tensor's name in the file, for messages

    // Converted values that are all bfloat16 (a BF16 checkpoint's) move into the tile layout when
    // the processor has tiles (TileWeights): products by them run on the tiles, and the float32
    // copy is freed (half the memory). In-place matrices, and any other, stay as they are.
    // Returns whether it moved.
    bool moveIntoTiles()
    {
        if (isInPlace() || m_tiles || isEmpty())
            return false;
        auto tiles = TileWeights::pack(view());
        if (!tiles)
            return false;
        m_tiles = std::make_unique<TileWeights>(std::move(*tiles));
        m_owned = Matrix();
        m_data = nullptr;
        return true;
    }
    const TileWeights* tiles() const { return m_tiles.get(); }

    // Whether every value is known to be finite: converted weights from the start, weights read
    // in place once a product has checked them (the first pass reads them through the cache
    // anyway; later passes need not scan them again).
    bool isChecked() const { return m_checked.load(std::memory_order_relaxed); }
    void markChecked() const { m_checked.store(true, std::memory_order_relaxed); }

private:
    QString m_name;
    Matrix m_owned;
    std::unique_ptr<TileWeights> m_tiles;  // instead of m_owned, after moveIntoTiles()
    const float* m_data = nullptr;
    Eigen::Index m_rows = 0;
    Eigen::Index m_cols = 0;
    mutable std::atomic<bool> m_checked = false;
};

// out = x W + bias (bias empty: none), W's finiteness checked the first time it is used.
//   x (rows, W.rows()), bias (W.cols()), out (rows, W.cols()).
// False when W or the bias holds a NaN or an infinity.
inline bool multiply(const ConstBlockRef& x, const WeightMatrix& w, const RowVector& bias, BlockRef out)
{
    if (const TileWeights* tiles = w.tiles()) {  // finite: checked as it was packed
        tileProduct(x, *tiles, bias.size() > 0 ? bias.data() : nullptr, out);
        return true;
    }
    if (!linear(x, w.view(), bias.size() > 0 ? bias.data() : nullptr, out, !w.isChecked()))
        return false;
    w.markChecked();
    return true;
}

}  // namespace attn
