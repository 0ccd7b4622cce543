// libFuzzer target: tokenizer.json (and after a kConfigSeparator line, tokenizer_config.json) in a
// model folder, through loadTokenizer as --model reads it; a tokenizer that loads then encodes
// a few texts.

#include "core/text/TokenizerLoader.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    static const fuzz::InputFolder folder(QStringLiteral("tokenizer-json"));
    const fuzz::FileAndConfig input = fuzz::splitConfig(fuzz::bytesOf(data, size));
    folder.put(QStringLiteral("tokenizer.json"), input.file);
    folder.putOrRemove(QStringLiteral("tokenizer_config.json"), input.config);
    auto tokenizer = loadTokenizer(folder.path());
    if (!tokenizer) {
        fuzz::checkPrintedMessage(tokenizer.error());
        return 0;
    }
    fuzz::checkTokenizer(**tokenizer);
    return 0;
}
