// libFuzzer target: WeightFile::load on a file, the whole path --weights takes. The first byte
// picks the extension (.safetensors, .npz, .json) and the options (layer 0-3, heads from the file
// or 1-3); the rest is the file.

#include "core/weights/WeightFile.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    if (size == 0)
        return 0;
    static const QString kSuffixes[] = {QStringLiteral(".safetensors"), QStringLiteral(".npz"),
                                        QStringLiteral(".json")};
    const std::uint8_t selector = data[0];
    const QString path = fuzz::writeInputFile(fuzz::bytesOf(data + 1, size - 1), kSuffixes[selector % 3]);
    WeightFileOptions options;
    options.layer = (selector >> 2) & 3;
    options.num_heads = (selector >> 4) & 3;
    auto loaded = WeightFile::load(path, options);
    if (!loaded) {
        fuzz::checkPrintedMessage(loaded.error());
        return 0;
    }
    FUZZ_CHECK(loaded->weights.validate().ok());
    FUZZ_CHECK(options.layer < loaded->layer_count);
    FUZZ_CHECK(options.num_heads == 0 || loaded->weights.num_heads == options.num_heads);
    return 0;
}
