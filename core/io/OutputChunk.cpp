#include "core/io/OutputChunk.h"

namespace attn {

bool OutputChunk::flushWhenFull(QByteArray& chunk, QIODevice& device)
{
    return chunk.size() < kBytes || flush(chunk, device);
}

bool OutputChunk::flush(QByteArray& chunk, QIODevice& device)
{
    if (device.write(chunk) != chunk.size())
        return false;
    chunk.resize(0);  // keeps the capacity
    return true;
}

}  // namespace attn
