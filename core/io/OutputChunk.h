#pragma once

#include <QByteArray>
#include <QIODevice>

namespace attn {

// A file too large to build in memory (a long input's export: gigabytes) is made a chunk at a
// time: its bytes are gathered in one buffer, written to the device once it holds kBytes, and
// the buffer emptied with its memory kept for the next chunk.
class OutputChunk {
public:
    static constexpr qsizetype kBytes = qsizetype(4) << 20;

    // Writes `chunk` to `device` and empties it once it holds kBytes or more; false when the
    // write fails.
    static bool flushWhenFull(QByteArray& chunk, QIODevice& device);
    // Writes whatever `chunk` holds and empties it; false when the write fails.
    static bool flush(QByteArray& chunk, QIODevice& device);
};

}  // namespace attn
