// libFuzzer target: vocab.txt (and after a kConfigSeparator line, tokenizer_config.json) in a model
// folder, through loadTokenizer (LegacyVocabReader::readWordPiece) as --model reads a BERT style
// folder; a tokenizer that loads then encodes a few texts.

#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    static const fuzz::InputFolder folder(QStringLiteral("vocab-txt"));
    fuzz::loadTokenizerFolder(folder, QStringLiteral("vocab.txt"), data, size);
    return 0;
}
