// libFuzzer target: vocab.json (and after a kConfigSeparator line, tokenizer_config.json) beside a
// fixed merges.txt, through loadTokenizer (LegacyVocabReader::readByteLevelBpe) as --model reads
// a GPT-2 style folder; a tokenizer that loads then encodes a few texts.

#include "tests/fuzz/FuzzSupport.h"
#include "tests/support/ToyGpt2Tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    static const fuzz::InputFolder folder(QStringLiteral("vocab-json"));
    // The merges of the seeds' vocabularies (transformers' toy GPT-2 tokenizer test).
    static const bool merges_written = (folder.put(QStringLiteral("merges.txt"), testing::toyGpt2MergesTxt()), true);
    (void)merges_written;
    fuzz::loadTokenizerFolder(folder, QStringLiteral("vocab.json"), data, size);
    return 0;
}
