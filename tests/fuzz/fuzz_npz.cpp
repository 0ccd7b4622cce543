// libFuzzer target: an .npz file through NpzReader (the zip directory, then every member's .npy
// header and data, and num_heads), as WeightFile opens one.

#include "core/io/NpzReader.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    auto reader = NpzReader::open(fuzz::writeInputFile(fuzz::bytesOf(data, size), QStringLiteral(".npz")));
    if (!reader) {
        fuzz::checkMessage(reader.error());
        return 0;
    }
    fuzz::readEveryTensor(**reader);
    return 0;
}
