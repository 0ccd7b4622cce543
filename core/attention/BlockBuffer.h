#pragma once

#include "core/base/Tensor.h"
#include "core/ops/LinearColumns.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace attn {

// A thread's block of weights for a long input's pass and for recomputing a head, laid out as the
// same rows of a (query_len, key_len) matrix whose first row is 64-byte aligned (as Eigen aligns
// a Matrix built for AVX-512): the softmax's vectorised sums depend on where a row starts, and so
// a row comes out bit for bit the same in the pass, in a recomputation, and (when its block is the
// same) in the ordinary pass. The rows are then copied where they are kept.
class BlockBuffer {
public:
    BlockBuffer(int rows, int key_len)
        : m_key_len(key_len), m_storage(size_t(std::max(0, rows)) * size_t(std::max(0, key_len)) + 2 * kAlign)
    {
    }
    // Rows first .. first + count - 1 of that matrix: (count, key_len).
    BlockRef rows(int first, int count)
    {
        const auto base = reinterpret_cast<std::uintptr_t>(m_storage.data());
        float* aligned = reinterpret_cast<float*>((base + 63) & ~std::uintptr_t(63));
        float* start = aligned + (std::int64_t(first) * m_key_len) % std::int64_t(kAlign);
        return BlockRef(Eigen::Map<Matrix>(start, count, m_key_len));
    }

private:
    static constexpr size_t kAlign = 16;  // floats in 64 bytes
    int m_key_len = 0;
    std::vector<float> m_storage;
};

}  // namespace attn
