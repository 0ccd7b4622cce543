#pragma once

#include <QByteArray>
#include <QIODevice>

#include <algorithm>

namespace attn {

// What readAtMost found: the bytes, or that there were more than the limit, or a read error.
struct BoundedRead {
    QByteArray bytes;
    bool over_limit = false;
    bool failed = false;
};

// The rest of an open file or stream, refused when it holds more than `limit` bytes however much
// it grew since it was measured. Memory follows what is actually read (the file's size up front,
// then 1 MiB at a time), never the limit: QIODevice::read(limit + 1) would allocate the whole limit
// for a file of a few bytes.
inline BoundedRead readAtMost(QIODevice& device, qint64 limit)
{
    constexpr qint64 kStep = qint64(1) << 20;
    BoundedRead result;
    const qint64 expected = device.isSequential() ? 0 : std::clamp<qint64>(device.size() - device.pos(), 0, limit);
    result.bytes.reserve(qsizetype(expected + 1));
    for (;;) {
        const qint64 have = result.bytes.size();
        if (have > limit) {
            result.over_limit = true;
            result.bytes.clear();
            return result;
        }
        // One byte past what is expected first, so the end (or growth) is seen; then steps.
        const qint64 want = std::min(have <= expected ? expected + 1 - have : kStep, limit + 1 - have);
        result.bytes.resize(qsizetype(have + want));
        const qint64 got = device.read(result.bytes.data() + have, want);
        if (got < 0) {
            result.failed = true;
            result.bytes.clear();
            return result;
        }
        result.bytes.resize(qsizetype(have + got));
        if (got == 0)
            return result;
    }
}

}  // namespace attn
