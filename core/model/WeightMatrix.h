#pragma once

#include "core/base/Tensor.h"

#include <QString>

namespace attn {

// A weight matrix of a model in the layout the forward pass multiplies with, either read in place
// from the memory-mapped file (an F32 tensor already stored in that layout) or converted into
// memory of its own (F16/BF16, or an nn.Linear weight that had to be transposed).
class WeightMatrix {
public:
    WeightMatrix() = default;
    WeightMatrix(WeightMatrix&&) = default;  // the owned buffer moves with its pointer
    WeightMatrix& operator=(WeightMatrix&&) = default;
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
        return w;
    }

    Eigen::Map<const Matrix> view() const { return {m_data, m_rows, m_cols}; }
    Eigen::Index rows() const { return m_rows; }
    Eigen::Index cols() const { return m_cols; }
    bool isEmpty() const { return m_rows * m_cols == 0; }
    bool isInPlace() const { return m_data != nullptr && m_owned.size() == 0; }
    const QString& name() const { return m_name; }  // the tensor's name in the file, for messages

private:
    QString m_name;
    Matrix m_owned;
    const float* m_data = nullptr;
    Eigen::Index m_rows = 0;
    Eigen::Index m_cols = 0;
};

}  // namespace attn
