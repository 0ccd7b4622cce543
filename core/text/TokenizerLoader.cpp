#include "core/text/TokenizerLoader.h"

#include "core/text/LegacyVocabReader.h"
#include "core/text/TokenizerFiles.h"
#include "core/text/TokenizerJsonReader.h"

#include <QFileInfo>

namespace attn {

Result<std::unique_ptr<SubwordTokenizer>> loadTokenizer(const QString& modelDir)
{
    if (!QFileInfo(modelDir).isDir())
        return Error{QStringLiteral("%1: not a folder").arg(modelDir)};
    if (TokenizerFiles::exists(modelDir, QStringLiteral("tokenizer.json"))) {
        Result<QJsonObject> root = TokenizerFiles::readJsonObject(modelDir, QStringLiteral("tokenizer.json"));
        if (!root)
            return Error{root.error()};
        Result<QJsonObject> config =
            TokenizerFiles::readOptionalJsonObject(modelDir, QStringLiteral("tokenizer_config.json"));
        if (!config)
            return Error{config.error()};
        return TokenizerJsonReader::read(*root, *config);
    }
    const bool vocabJson = TokenizerFiles::exists(modelDir, QStringLiteral("vocab.json"));
    const bool merges = TokenizerFiles::exists(modelDir, QStringLiteral("merges.txt"));
    if (vocabJson || merges) {
        if (!vocabJson)
            return Error{QStringLiteral("vocab.json: not found (merges.txt needs it)")};
        if (!merges)
            return Error{QStringLiteral("merges.txt: not found (vocab.json needs it)")};
        return LegacyVocabReader::readByteLevelBpe(modelDir);
    }
    if (TokenizerFiles::exists(modelDir, QStringLiteral("vocab.txt")))
        return LegacyVocabReader::readWordPiece(modelDir);
    return Error{QStringLiteral("%1: no tokenizer.json, vocab.json + merges.txt or vocab.txt").arg(modelDir)};
}

}  // namespace attn
