#pragma once

#include "core/attention/AttentionTrace.h"
#include "core/attention/BlockBuffer.h"

#include <functional>

namespace attn {

// Any head's probabilities, one block of query rows at a time, recomputed from a trace's q and k in the
// blocks of the pass that made it (trace.query_block rows) by the same code: equal bit for bit to
// the probabilities that pass computed. For work over every head of a long input without holding a
// whole head: each block is rows x key_len floats. After construction it is only read, so threads
// may share it, each with its own buffer().
class HeadRecomputer {
public:
    explicit HeadRecomputer(const AttentionTrace& trace);

    int blockCount() const { return m_block_count; }
    int firstRow(int block) const { return block * m_block_rows; }
    int blockOf(int row) const { return row / m_block_rows; }
    int rowCount(int block) const;
    BlockBuffer buffer() const;  // one thread's scratch for probabilities()

    // Head `head`'s probabilities of queries firstRow(block) .. + rowCount(block) - 1: (rows, key_len),
    // masked keys exactly 0, written into `buffer`.
    BlockRef probabilities(int head, int block, BlockBuffer& buffer) const;

private:
    const AttentionTrace& m_trace;
    int m_block_rows = 0;
    int m_block_count = 0;
    Matrix m_keys_t;  // (kv_heads * head_dim, key_len): K_g^T of every key/value head g
};

// Every head's probabilities in order, each a block of query rows at a time in order: visit(head, first
// row, rows (count, key_len)). A trace that keeps every head gives each matrix whole; a long input's
// (one head kept) its kept head from the trace and the others recomputed a block at a time, so no
// whole head is made. visit returns false to stop; the result is false when it did.
bool forEachHeadRows(const AttentionTrace& trace,
                     const std::function<bool(int head, int first, const ConstBlockRef& rows)>& visit);

}  // namespace attn
