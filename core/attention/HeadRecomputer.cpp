#include "core/attention/HeadRecomputer.h"

#include "core/attention/BlockWeights.h"

#include <algorithm>

namespace attn {

namespace {
constexpr int kDefaultQueryBlock = 64;  // a trace assembled without a pass: the pass's usual block
}

HeadRecomputer::HeadRecomputer(const AttentionTrace& trace) : m_trace(trace)
{
    m_block_rows = trace.query_block > 0 ? trace.query_block : kDefaultQueryBlock;
    m_block_count = (trace.queryLength() + m_block_rows - 1) / m_block_rows;
    const int head_dim = trace.head_dim;
    m_keys_t.resize(trace.kvHeads() * head_dim, trace.keyLength());
    for (int kv_head = 0; kv_head < trace.kvHeads(); ++kv_head)
        m_keys_t.middleRows(kv_head * head_dim, head_dim) = trace.k.middleCols(kv_head * head_dim, head_dim).transpose();
}

int HeadRecomputer::rowCount(int block) const
{
    return std::clamp(m_trace.queryLength() - firstRow(block), 0, m_block_rows);
}

BlockBuffer HeadRecomputer::buffer() const
{
    return BlockBuffer(m_block_rows, m_trace.keyLength());
}

BlockRef HeadRecomputer::weights(int head, int block, BlockBuffer& buffer) const
{
    const int first = firstRow(block);
    const int rows = rowCount(block);
    BlockRef w = buffer.rows(first, rows);  // (rows, key_len)
    blockWeights(m_trace, m_keys_t, head, first, rows, w);
    return w;
}

}  // namespace attn
