// libFuzzer target: tokenizer.json (and after a kConfigSeparator line, tokenizer_config.json) in a
// model folder, through loadTokenizer as --model reads it; a tokenizer that loads then encodes
// a few texts.

#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    static const fuzz::InputFolder folder(QStringLiteral("tokenizer-json"));
    fuzz::loadTokenizerFolder(folder, QStringLiteral("tokenizer.json"), data, size);
    return 0;
}
