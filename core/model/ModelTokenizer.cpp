#include "core/model/ModelTokenizer.h"

#include <QDir>
#include <QFileInfo>

namespace attn {

bool ModelTokenizer::hasFiles(const QString& dir)
{
    const QDir folder(dir);
    const auto has = [&folder](const char* name) { return QFileInfo(folder.filePath(QLatin1String(name))).isFile(); };
    return has("tokenizer.json") || has("vocab.json") || has("merges.txt") || has("vocab.txt");
}

Result<std::unique_ptr<ModelTokenizer>> ModelTokenizer::load(const QString& dir)
{
    if (!hasFiles(dir))
        return Error{QStringLiteral("no tokenizer files (tokenizer.json, vocab.json + merges.txt, or vocab.txt)")};
    return Error{
        QStringLiteral("reading the folder's tokenizer is not available in this build yet; "
                       "give the ids with --token-ids")};
}

}  // namespace attn
