// libFuzzer target: JSON weights through JsonWeightsReader::parse, as WeightFile reads a .json.

#include "core/weights/JsonWeightsReader.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    const QByteArray json = fuzz::bytesOf(data, size);
    for (int heads : {0, 1}) {  // num_heads from the file, and given (--heads 1)
        auto weights = JsonWeightsReader::parse(json, heads);
        if (weights)
            FUZZ_CHECK(weights->validate().ok());
        else
            fuzz::checkMessage(weights.error());
    }
    return 0;
}
