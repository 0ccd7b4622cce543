#include "core/attention/HeadRecomputer.h"

#include "core/attention/BlockProbabilities.h"
#include "core/ops/Transpose.h"

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
        transposeInto(trace.k.middleCols(kv_head * head_dim, head_dim), m_keys_t.middleRows(kv_head * head_dim, head_dim));
}

int HeadRecomputer::rowCount(int block) const
{
    return std::clamp(m_trace.queryLength() - firstRow(block), 0, m_block_rows);
}

BlockBuffer HeadRecomputer::buffer() const
{
    return BlockBuffer(m_block_rows, m_trace.keyLength());
}

BlockRef HeadRecomputer::probabilities(int head, int block, BlockBuffer& buffer) const
{
    const int first = firstRow(block);
    const int rows = rowCount(block);
    BlockRef w = buffer.rows(first, rows);  // (rows, key_len)
    blockProbabilities(m_trace, m_keys_t, head, first, rows, w);
    return w;
}

bool forEachHeadRows(const AttentionTrace& trace,
                     const std::function<bool(int head, int first, const ConstBlockRef& rows)>& visit)
{
    if (trace.keepsEveryHead()) {
        for (int head = 0; head < int(trace.probabilities.size()); ++head)
            if (!visit(head, 0, trace.probabilities[size_t(head)]))
                return false;
        return true;
    }
    const HeadRecomputer recomputer(trace);
    BlockBuffer buffer = recomputer.buffer();
    for (int head = 0; head < trace.num_heads; ++head)
        for (int block = 0; block < recomputer.blockCount(); ++block) {
            const int first = recomputer.firstRow(block);
            const bool kept = head == trace.kept_head;
            const ConstBlockRef rows = kept ? ConstBlockRef(trace.probabilities[size_t(head)].middleRows(first, recomputer.rowCount(block)))
                                            : ConstBlockRef(recomputer.probabilities(head, block, buffer));
            if (!visit(head, first, rows))
                return false;
        }
    return true;
}

}  // namespace attn
