// libFuzzer target: merges.txt (and after a kConfigSeparator line, tokenizer_config.json) beside a
// fixed vocab.json, through loadTokenizer (LegacyVocabReader::readByteLevelBpe) as --model reads
// a GPT-2 style folder; a tokenizer that loads then encodes a few texts.

#include "tests/fuzz/FuzzSupport.h"
#include "tests/support/ToyGpt2Tokenizer.h"

#include <QJsonDocument>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    static const fuzz::InputFolder folder(QStringLiteral("merges-txt"));
    // The vocabulary of transformers' toy GPT-2 tokenizer test, every byte-level symbol of its
    // merges included.
    static const bool vocab_written =
        (folder.put(QStringLiteral("vocab.json"),
                    QJsonDocument(testing::toyGpt2Vocab()).toJson(QJsonDocument::Compact)),
         true);
    (void)vocab_written;
    fuzz::loadTokenizerFolder(folder, QStringLiteral("merges.txt"), data, size);
    return 0;
}
