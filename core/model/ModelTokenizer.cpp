#include "core/model/ModelTokenizer.h"

#include "core/text/TokenizerLoader.h"

#include <QDir>
#include <QFileInfo>

namespace attn {
namespace {

// The folder's SubwordTokenizer (core/text/), as --model uses it.
class FolderTokenizer : public ModelTokenizer {
public:
    explicit FolderTokenizer(std::unique_ptr<SubwordTokenizer> tokenizer) : m_tokenizer(std::move(tokenizer)) {}

    std::vector<int> encode(const QString& text) const override
    {
        const QList<int> ids = m_tokenizer->encode(text).ids;  // special tokens added, as tokenizer(text)
        return std::vector<int>(ids.begin(), ids.end());
    }
    QString tokenText(int id) const override { return m_tokenizer->idToToken(id); }
    std::optional<int> tokenId(const QString& token) const override { return m_tokenizer->tokenToId(token); }
    bool byteLevel() const override { return m_tokenizer->byteLevel(); }

private:
    std::unique_ptr<SubwordTokenizer> m_tokenizer;
};

}  // namespace

bool ModelTokenizer::hasFiles(const QString& dir)
{
    const QDir folder(dir);
    const auto has = [&folder](const char* name) { return QFileInfo(folder.filePath(QLatin1String(name))).isFile(); };
    return has("tokenizer.json") || has("vocab.json") || has("merges.txt") || has("vocab.txt");
}

Result<std::unique_ptr<ModelTokenizer>> ModelTokenizer::load(const QString& dir)
{
    if (!hasFiles(dir)) {
        // SentencePiece's own model file is not read; the hub's Llama-family folders also hold
        // its conversion, tokenizer.json.
        if (QFileInfo(QDir(dir).filePath(QStringLiteral("tokenizer.model"))).isFile())
            return Error{
                QStringLiteral("no tokenizer files (tokenizer.model, SentencePiece's own format, is not read: "
                               "download the model's tokenizer.json too)")};
        return Error{QStringLiteral("no tokenizer files (tokenizer.json, vocab.json + merges.txt, or vocab.txt)")};
    }
    auto tokenizer = loadTokenizer(dir);
    if (!tokenizer)
        return Error{tokenizer.error()};
    return std::unique_ptr<ModelTokenizer>(std::make_unique<FolderTokenizer>(std::move(tokenizer).value()));
}

}  // namespace attn
