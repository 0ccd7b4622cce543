#include "core/attention/CellBlocks.h"

#include <algorithm>
#include <limits>

namespace attn {
namespace {

constexpr int kLanes = 8;  // blocks reduced side by side

}  // namespace

int reductionFactor(int rows, int columns, int max_side)
{
    const int side = std::max({1, rows, columns});
    return std::max(1, (side + max_side - 1) / std::max(1, max_side));
}

CellBlocks CellBlocks::sized(int rows, int columns, int factor)
{
    CellBlocks blocks;
    blocks.factor = std::max(1, factor);
    const int drawn_rows = (std::max(0, rows) + blocks.factor - 1) / blocks.factor;
    const int drawn_columns = (std::max(0, columns) + blocks.factor - 1) / blocks.factor;
    blocks.max = Matrix::Zero(drawn_rows, drawn_columns);
    blocks.mean = Matrix::Zero(drawn_rows, drawn_columns);
    blocks.hidden = MaskMatrix::Constant(drawn_rows, drawn_columns, false);
    return blocks;
}

void CellBlocks::dropEmptyMask()
{
    if (hidden.size() > 0 && !hidden.any())
        hidden = MaskMatrix();
}

void BlockRowReducer::reduce(const float* values, Eigen::Index stride, const bool* mask, Eigen::Index mask_stride,
                             int lines, int columns, int factor, float* max_out, float* mean_out, bool* hidden_out)
{
    const int f = std::max(1, factor);
    const int drawn_columns = (columns + f - 1) / f;
    m_sums.assign(size_t(drawn_columns), 0.0);
    m_maxima.assign(size_t(drawn_columns), -std::numeric_limits<float>::infinity());
    m_counts.assign(size_t(drawn_columns), 0);
    // Without a mask, eight whole blocks at a time: lane b adds block b's cells of the line in
    // column order, in double, as the loop below does for one block (0 + x == x exactly), so the
    // sums are the same bit for bit, eight additions in flight instead of one.
    const int whole_groups = mask ? 0 : (columns / f) / kLanes;
    for (int line_index = 0; line_index < lines; ++line_index) {
        const float* line = values + line_index * stride;
        const bool* hides = mask ? mask + line_index * mask_stride : nullptr;
        for (int group = 0; group < whole_groups; ++group) {
            const float* first = line + std::int64_t(group) * kLanes * f;
            using Lane = Eigen::Map<const Eigen::Matrix<float, kLanes, 1>, 0, Eigen::InnerStride<>>;
            const Lane column0(first, Eigen::InnerStride<>(f));
            Eigen::Matrix<double, kLanes, 1> sum = column0.cast<double>();
            Eigen::Matrix<float, kLanes, 1> largest = column0;
            for (int k = 1; k < f; ++k) {
                const Lane column(first + k, Eigen::InnerStride<>(f));
                sum += column.cast<double>();
                largest = largest.cwiseMax(column);
            }
            const size_t block = size_t(group) * kLanes;
            Eigen::Map<Eigen::Matrix<double, kLanes, 1>>(m_sums.data() + block) += sum;
            auto maxima = Eigen::Map<Eigen::Matrix<float, kLanes, 1>>(m_maxima.data() + block);
            maxima = maxima.cwiseMax(largest);
            for (int lane = 0; lane < kLanes; ++lane)
                m_counts[block + size_t(lane)] += f;
        }
        for (int block = whole_groups * kLanes; block < drawn_columns; ++block) {
            const int begin = block * f;
            const int end = std::min(columns, begin + f);
            double sum = 0.0;
            float largest = m_maxima[size_t(block)];
            int visible = 0;
            for (int column = begin; column < end; ++column) {
                if (hides && hides[column])
                    continue;
                sum += line[column];
                largest = std::max(largest, line[column]);
                ++visible;
            }
            m_sums[size_t(block)] += sum;
            m_maxima[size_t(block)] = largest;
            m_counts[size_t(block)] += visible;
        }
    }
    for (int block = 0; block < drawn_columns; ++block) {
        const bool none = m_counts[size_t(block)] == 0;
        if (hidden_out)
            hidden_out[block] = none;
        if (max_out)
            max_out[block] = none ? 0.0f : m_maxima[size_t(block)];
        if (mean_out)
            mean_out[block] = none ? 0.0f : float(m_sums[size_t(block)] / double(m_counts[size_t(block)]));
    }
}

}  // namespace attn
