// libFuzzer target: a safetensors file in memory, through SafetensorsReader (the header checks of
// SafetensorsHeader, then every tensor read), as WeightFile opens one.

#include "core/io/SafetensorsReader.h"
#include "tests/fuzz/FuzzSupport.h"

#include <QBuffer>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    auto buffer = std::make_unique<QBuffer>();
    buffer->setData(fuzz::bytesOf(data, size));
    buffer->open(QIODevice::ReadOnly);
    auto reader = SafetensorsReader::open(std::move(buffer));
    if (!reader) {
        fuzz::checkMessage(reader.error());
        return 0;
    }
    // The header's promises: every known tensor's bytes lie inside the data section, in order.
    qint64 covered = 0;
    for (const SafetensorsTensorInfo& t : (*reader)->tensors()) {
        FUZZ_CHECK(t.begin == covered && t.end >= t.begin);
        covered = t.end;
        FUZZ_CHECK((*reader)->find(t.name) != nullptr);
    }
    FUZZ_CHECK(qint64(size) >= 8 + covered);
    fuzz::readEveryTensor(**reader);
    return 0;
}
