#include "core/text/LegacyVocabReader.h"

#include "core/text/BertNormalizer.h"
#include "core/text/BertPreTokenizer.h"
#include "core/text/BpeModel.h"
#include "core/text/ByteLevelPostProcessor.h"
#include "core/text/ByteLevelPreTokenizer.h"
#include "core/text/JsonFieldReader.h"
#include "core/text/TemplatePostProcessor.h"
#include "core/text/TokenizerFiles.h"
#include "core/text/WordPieceModel.h"

namespace attn {
namespace {

const QString kConfig = QStringLiteral("tokenizer_config.json");
const QString kSpecialMap = QStringLiteral("special_tokens_map.json");

// tokenizer_config.json with special_tokens_map.json laid over it.
Result<QJsonObject> readConfig(const QString& dir)
{
    if (TokenizerFiles::exists(dir, QStringLiteral("added_tokens.json")))
        return Error{QStringLiteral("added_tokens.json: added tokens outside tokenizer.json are not supported")};
    Result<QJsonObject> config = TokenizerFiles::readOptionalJsonObject(dir, kConfig);
    if (!config)
        return config;
    Result<QJsonObject> specials = TokenizerFiles::readOptionalJsonObject(dir, kSpecialMap);
    if (!specials)
        return specials;
    QJsonObject merged = *config;
    for (auto it = specials->begin(); it != specials->end(); ++it)
        merged.insert(it.key(), it.value());
    return merged;
}

// The special token named by `key` in the configuration, or `fallback`.
Result<QString> specialTokenName(const QJsonObject& config, const QString& key, const QString& fallback)
{
    const QJsonValue value = config.value(key);
    if (value.isUndefined() || value.isNull())
        return fallback;
    const std::optional<QString> name = TokenizerFiles::tokenName(value);
    if (!name || name->isEmpty())
        return Error{QStringLiteral("%1: %2 must be a token (a string or {\"content\": ...})").arg(kConfig, key)};
    return *name;
}

// Marks the configuration's special tokens as such: each is cut out of the raw text and never
// split. A special token outside the vocabulary would get a new id in transformers; that is
// refused here rather than guessed.
Result<AddedVocabulary> specialTokens(const QJsonObject& config,
                                      const QList<std::pair<QString, QString>>& keysAndDefaults,
                                      const SubwordModel& model, const QString& vocabFile)
{
    AddedVocabulary added;
    for (const auto& [key, fallback] : keysAndDefaults) {
        Result<QString> name = specialTokenName(config, key, fallback);
        if (!name)
            return Error{name.error()};
        const std::optional<int> id = model.tokenToId(*name);
        if (!id)
            return Error{QStringLiteral("%1: the %2 %3 is not in the vocabulary")
                             .arg(vocabFile, key, TokenizerFiles::quoted(*name))};
        added.add({*id, *name, true, false, false, false, false});
    }
    return added;
}

}  // namespace

Result<std::unique_ptr<SubwordTokenizer>> LegacyVocabReader::readByteLevelBpe(const QString& dir)
{
    Result<QJsonObject> config = readConfig(dir);
    if (!config)
        return Error{config.error()};
    const JsonFieldReader fields(*config, kConfig, QString());
    Result<bool> prefix = fields.boolean(QStringLiteral("add_prefix_space"), false);
    if (!prefix)
        return Error{prefix.error()};
    Result<bool> bos = fields.boolean(QStringLiteral("add_bos_token"), false);
    if (!bos)
        return Error{bos.error()};
    if (*bos)
        return Error{QStringLiteral("%1: add_bos_token true is not supported").arg(kConfig)};

    Result<QJsonObject> vocabJson = TokenizerFiles::readJsonObject(dir, QStringLiteral("vocab.json"));
    if (!vocabJson)
        return Error{vocabJson.error()};
    Result<QHash<QString, int>> vocab = TokenizerFiles::vocabulary(*vocabJson, QStringLiteral("vocab.json"));
    if (!vocab)
        return Error{vocab.error()};

    const QString mergesFile = QStringLiteral("merges.txt");
    Result<QByteArray> mergesBytes = TokenizerFiles::read(dir, mergesFile);
    if (!mergesBytes)
        return Error{mergesBytes.error()};
    QStringList lines = QString::fromUtf8(*mergesBytes).split(u'\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();  // the newline that ends the last line
    QList<BpeModel::Merge> merges;
    merges.reserve(lines.size());
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QString line = lines[i];
        if (line.endsWith(u'\r'))
            line.chop(1);
        if (i == 0 && line.startsWith(QLatin1String("#version")))
            continue;
        const QStringList parts = line.split(u' ');
        if (parts.size() != 2 || parts[0].isEmpty() || parts[1].isEmpty())
            return Error{
                QStringLiteral("%1: line %2 is not two symbols separated by one space").arg(mergesFile).arg(i + 1)};
        merges.append({parts[0], parts[1]});
    }
    // transformers' conversion of GPT-2 files gives the model no unknown token.
    Result<std::unique_ptr<BpeModel>> model = BpeModel::create(*vocab, merges, BpeModel::Options{});
    if (!model)
        return Error{mergesFile + QStringLiteral(": ") + model.error()};

    SubwordTokenizer::Parts parts;
    const QString endOfText = QStringLiteral("<|endoftext|>");
    // Each of GPT-2's special tokens defaults to <|endoftext|>, which a vocabulary may lack.
    QList<std::pair<QString, QString>> keys;
    for (const QString& key : {QStringLiteral("bos_token"), QStringLiteral("eos_token"), QStringLiteral("unk_token"),
                               QStringLiteral("pad_token")}) {
        const bool configured = config->contains(key) && !config->value(key).isNull();
        if (configured || (key != QLatin1String("pad_token") && (*model)->tokenToId(endOfText)))
            keys.append({key, endOfText});
    }
    Result<AddedVocabulary> added = specialTokens(*config, keys, **model, QStringLiteral("vocab.json"));
    if (!added)
        return Error{added.error()};
    parts.added = std::move(added).value();
    parts.model = std::move(model).value();
    parts.preTokenizer = std::make_unique<ByteLevelPreTokenizer>(*prefix, true);
    parts.postProcessor = std::make_unique<ByteLevelPostProcessor>(false, *prefix);
    return std::make_unique<SubwordTokenizer>(std::move(parts));
}

Result<std::unique_ptr<SubwordTokenizer>> LegacyVocabReader::readWordPiece(const QString& dir)
{
    Result<QJsonObject> config = readConfig(dir);
    if (!config)
        return Error{config.error()};
    const JsonFieldReader fields(*config, kConfig, QString());
    Result<bool> lowercase = fields.boolean(QStringLiteral("do_lower_case"), true);
    Result<bool> chinese = fields.boolean(QStringLiteral("tokenize_chinese_chars"), true);
    Result<std::optional<bool>> stripAccents = fields.optionalBoolean(QStringLiteral("strip_accents"));
    for (const Result<bool>* flag : {&lowercase, &chinese})
        if (!*flag)
            return Error{flag->error()};
    if (!stripAccents)
        return Error{stripAccents.error()};

    const QString vocabFile = QStringLiteral("vocab.txt");
    Result<QByteArray> bytes = TokenizerFiles::read(dir, vocabFile);
    if (!bytes)
        return Error{bytes.error()};
    QStringList lines = QString::fromUtf8(*bytes).split(u'\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    if (lines.size() >= TokenizerFiles::kMaxTokenId)
        return Error{QStringLiteral("%1: more than %2 lines").arg(vocabFile).arg(TokenizerFiles::kMaxTokenId - 1)};
    QHash<QString, int> vocab;
    vocab.reserve(lines.size());
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QString token = lines[i];
        if (token.endsWith(u'\r'))
            token.chop(1);
        vocab.insert(token, int(i));
    }
    if (vocab.isEmpty())
        return Error{QStringLiteral("%1: is empty").arg(vocabFile)};

    Result<QString> unk = specialTokenName(*config, QStringLiteral("unk_token"), QStringLiteral("[UNK]"));
    if (!unk)
        return Error{unk.error()};
    WordPieceModel::Options options;
    options.unkToken = *unk;
    Result<std::unique_ptr<WordPieceModel>> model = WordPieceModel::create(vocab, options);
    if (!model)
        return Error{vocabFile + QStringLiteral(": ") + model.error()};

    Result<AddedVocabulary> added = specialTokens(*config,
                                                  {{QStringLiteral("unk_token"), QStringLiteral("[UNK]")},
                                                   {QStringLiteral("sep_token"), QStringLiteral("[SEP]")},
                                                   {QStringLiteral("pad_token"), QStringLiteral("[PAD]")},
                                                   {QStringLiteral("cls_token"), QStringLiteral("[CLS]")},
                                                   {QStringLiteral("mask_token"), QStringLiteral("[MASK]")}},
                                                  **model, vocabFile);
    if (!added)
        return Error{added.error()};
    Result<QString> cls = specialTokenName(*config, QStringLiteral("cls_token"), QStringLiteral("[CLS]"));
    Result<QString> sep = specialTokenName(*config, QStringLiteral("sep_token"), QStringLiteral("[SEP]"));
    if (!cls || !sep)
        return Error{!cls ? cls.error() : sep.error()};

    SubwordTokenizer::Parts parts;
    BertNormalizer::Options normalizer;
    normalizer.handleChineseChars = *chinese;
    normalizer.lowercase = *lowercase;
    normalizer.stripAccents = stripAccents->value_or(*lowercase);
    parts.normalizer = std::make_unique<BertNormalizer>(normalizer);
    parts.preTokenizer = std::make_unique<BertPreTokenizer>();
    parts.postProcessor = std::make_unique<TemplatePostProcessor>(QList<TemplatePostProcessor::Part>{
        {false, {*(*model)->tokenToId(*cls)}}, {true, {}}, {false, {*(*model)->tokenToId(*sep)}}});
    parts.added = std::move(added).value();
    parts.model = std::move(model).value();
    return std::make_unique<SubwordTokenizer>(std::move(parts));
}

}  // namespace attn
