#include "core/text/TokenizerJsonReader.h"

#include "core/text/BpeModel.h"
#include "core/text/JsonFieldReader.h"
#include "core/text/TemplatePostProcessor.h"
#include "core/text/TokenizerFiles.h"
#include "core/text/TokenizerJsonPostProcessing.h"
#include "core/text/TokenizerJsonSteps.h"
#include "core/text/WordPieceModel.h"

#include <QJsonArray>

namespace attn {
namespace {

const QString kFile = QStringLiteral("tokenizer.json");

Error fail(const QString& problem)
{
    return TokenizerJsonSteps::fail(problem);
}

Result<QString> componentType(const QJsonValue& value, const QString& component)
{
    return TokenizerJsonSteps::componentType(value, component);
}

Error unsupported(const QString& component, const QString& type)
{
    return TokenizerJsonSteps::unsupported(component, type);
}

Result<AddedVocabulary> readAddedTokens(const QJsonValue& value)
{
    AddedVocabulary added;
    if (value.isUndefined() || value.isNull())
        return added;
    if (!value.isArray())
        return fail(QStringLiteral("added_tokens must be an array"));
    const QJsonArray array = value.toArray();
    QHash<int, QString> contentById;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = QStringLiteral("added_tokens[%1]").arg(i);
        if (!array[i].isObject())
            return fail(path + QStringLiteral(" must be an object"));
        const JsonFieldReader fields(array[i].toObject(), kFile, path);
        AddedVocabulary::Entry entry;
        const std::optional<int> id = TokenizerFiles::tokenId(fields.object().value(QStringLiteral("id")));
        if (!id)
            return fields.error(
                QStringLiteral("id"),
                QStringLiteral("must be a whole number from 0 to %1").arg(TokenizerFiles::kMaxTokenId - 1));
        entry.id = *id;
        const QJsonValue content = fields.object().value(QStringLiteral("content"));
        if (!content.isString() || content.toString().isEmpty())
            return fields.error(QStringLiteral("content"), QStringLiteral("must be a non-empty string"));
        entry.content = content.toString();
        const auto previous = contentById.constFind(entry.id);
        if (previous != contentById.cend() && previous.value() != entry.content)
            return fail(QStringLiteral("added_tokens gives id %1 to both %2 and %3")
                            .arg(entry.id)
                            .arg(TokenizerFiles::quoted(previous.value()), TokenizerFiles::quoted(entry.content)));
        contentById.insert(entry.id, entry.content);
        Result<bool> special = fields.boolean(QStringLiteral("special"), false);
        Result<bool> singleWord = fields.boolean(QStringLiteral("single_word"), false);
        Result<bool> lstrip = fields.boolean(QStringLiteral("lstrip"), false);
        Result<bool> rstrip = fields.boolean(QStringLiteral("rstrip"), false);
        for (const Result<bool>* flag : {&special, &singleWord, &lstrip, &rstrip})
            if (!*flag)
                return Error{flag->error()};
        // Hugging Face's default: special tokens are matched in the raw text.
        Result<bool> normalized = fields.boolean(QStringLiteral("normalized"), !*special);
        if (!normalized)
            return Error{normalized.error()};
        entry.special = *special;
        entry.singleWord = *singleWord;
        entry.lstrip = *lstrip;
        entry.rstrip = *rstrip;
        entry.normalized = *normalized;
        added.add(entry);
    }
    return added;
}

// A step that may be null or absent.
template <typename Step>
Result<std::unique_ptr<Step>> optionalStep(const QJsonValue& value, const QString& path,
                                           Result<std::unique_ptr<Step>> (*read)(const QJsonValue&, const QString&))
{
    if (value.isUndefined() || value.isNull())
        return std::unique_ptr<Step>();
    return read(value, path);
}

Result<QList<BpeModel::Merge>> readMerges(const QJsonValue& value)
{
    if (!value.isArray())
        return fail(QStringLiteral("model.merges must be an array"));
    const QJsonArray array = value.toArray();
    QList<BpeModel::Merge> merges;
    merges.reserve(array.size());
    const bool pairs = !array.isEmpty() && array.first().isArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QJsonValue item = array[i];
        // Both spellings are Hugging Face's; one file uses one of them throughout.
        if (pairs && item.isArray()) {
            const QJsonArray pair = item.toArray();
            if (pair.size() == 2 && pair[0].isString() && pair[1].isString() && !pair[0].toString().isEmpty() &&
                !pair[1].toString().isEmpty()) {
                merges.append({pair[0].toString(), pair[1].toString()});
                continue;
            }
        } else if (!pairs && item.isString()) {
            const QStringList parts = item.toString().split(u' ');
            if (parts.size() == 2 && !parts[0].isEmpty() && !parts[1].isEmpty()) {
                merges.append({parts[0], parts[1]});
                continue;
            }
        }
        return fail(
            QStringLiteral("model.merges[%1] is not %2")
                .arg(i)
                .arg(pairs
                         ? QStringLiteral("a pair of two non-empty strings like [\"a\", \"b\"] (as the first merge is)")
                         : QStringLiteral("two symbols separated by one space like \"a b\" (as the first merge is)")));
    }
    return merges;
}

Result<std::unique_ptr<SubwordModel>> readBpe(const JsonFieldReader& fields)
{
    if (fields.has(QStringLiteral("dropout"))) {
        const QJsonValue dropout = fields.object().value(QStringLiteral("dropout"));
        if (!dropout.isDouble() || dropout.toDouble() != 0.0)
            return fields.error(QStringLiteral("dropout"),
                                QStringLiteral("is not supported: it makes tokenisation random"));
    }
    Result<bool> byteFallback = fields.boolean(QStringLiteral("byte_fallback"), false);
    if (!byteFallback)
        return Error{byteFallback.error()};
    for (const QString& key : {QStringLiteral("continuing_subword_prefix"), QStringLiteral("end_of_word_suffix")}) {
        Result<QString> affix = fields.string(key, QString());
        if (!affix)
            return Error{affix.error()};
        if (!affix->isEmpty())
            return fields.error(key, QStringLiteral("%1 is not supported").arg(TokenizerFiles::quoted(*affix)));
    }
    BpeModel::Options options;
    Result<QString> unk = fields.string(QStringLiteral("unk_token"), QString());
    Result<bool> fuseUnk = fields.boolean(QStringLiteral("fuse_unk"), false);
    Result<bool> ignoreMerges = fields.boolean(QStringLiteral("ignore_merges"), false);
    if (!unk)
        return Error{unk.error()};
    for (const Result<bool>* flag : {&fuseUnk, &ignoreMerges})
        if (!*flag)
            return Error{flag->error()};
    options.unkToken = *unk;
    options.fuseUnk = *fuseUnk;
    options.ignoreMerges = *ignoreMerges;
    options.byteFallback = *byteFallback;

    if (!fields.object().value(QStringLiteral("vocab")).isObject())
        return fail(QStringLiteral("model.vocab is missing or not an object"));
    Result<QHash<QString, int>> vocab = TokenizerFiles::vocabulary(
        fields.object().value(QStringLiteral("vocab")).toObject(), kFile + QStringLiteral(": model.vocab"));
    if (!vocab)
        return Error{vocab.error()};
    Result<QList<BpeModel::Merge>> merges = readMerges(fields.object().value(QStringLiteral("merges")));
    if (!merges)
        return Error{merges.error()};
    Result<std::unique_ptr<BpeModel>> model = BpeModel::create(*vocab, *merges, options);
    if (!model)
        return fail(QStringLiteral("model: ") + model.error());
    return std::unique_ptr<SubwordModel>(std::move(model).value());
}

Result<std::unique_ptr<SubwordModel>> readWordPiece(const JsonFieldReader& fields)
{
    WordPieceModel::Options options;
    Result<QString> unk = fields.string(QStringLiteral("unk_token"), options.unkToken);
    Result<QString> prefix =
        fields.string(QStringLiteral("continuing_subword_prefix"), options.continuingSubwordPrefix);
    Result<int> maxChars = fields.positiveInt(QStringLiteral("max_input_chars_per_word"), options.maxInputCharsPerWord);
    if (!unk)
        return Error{unk.error()};
    if (!prefix)
        return Error{prefix.error()};
    if (!maxChars)
        return Error{maxChars.error()};
    options.unkToken = *unk;
    options.continuingSubwordPrefix = *prefix;
    options.maxInputCharsPerWord = *maxChars;
    if (!fields.object().value(QStringLiteral("vocab")).isObject())
        return fail(QStringLiteral("model.vocab is missing or not an object"));
    Result<QHash<QString, int>> vocab = TokenizerFiles::vocabulary(
        fields.object().value(QStringLiteral("vocab")).toObject(), kFile + QStringLiteral(": model.vocab"));
    if (!vocab)
        return Error{vocab.error()};
    Result<std::unique_ptr<WordPieceModel>> model = WordPieceModel::create(*vocab, options);
    if (!model)
        return fail(QStringLiteral("model: ") + model.error());
    return std::unique_ptr<SubwordModel>(std::move(model).value());
}

Result<std::unique_ptr<SubwordModel>> readModel(const QJsonValue& value)
{
    if (!value.isObject())
        return fail(QStringLiteral("model is missing or not an object"));
    const JsonFieldReader fields(value.toObject(), kFile, QStringLiteral("model"));
    QString type;
    if (fields.has(QStringLiteral("type"))) {
        Result<QString> declared = componentType(value, QStringLiteral("model"));
        if (!declared)
            return Error{declared.error()};
        type = *declared;
    } else if (fields.has(QStringLiteral("merges"))) {
        type = QStringLiteral("BPE");  // files written before models carried their type
    } else if (fields.has(QStringLiteral("max_input_chars_per_word"))) {
        type = QStringLiteral("WordPiece");
    } else {
        return fail(QStringLiteral("model has no \"type\""));
    }
    if (type == QLatin1String("BPE"))
        return readBpe(fields);
    if (type == QLatin1String("WordPiece"))
        return readWordPiece(fields);
    return unsupported(QStringLiteral("model"), type);
}

// An option that tokenizer_config.json sets explicitly must agree with tokenizer.json.
Status checkConfigAgrees(const QJsonObject& root, const QJsonObject& config)
{
    struct Option {
        const char* configKey;
        const char* component;
        const char* type;
        const char* field;
    };
    static const Option options[] = {
        {"do_lower_case", "normalizer", "BertNormalizer", "lowercase"},
        {"strip_accents", "normalizer", "BertNormalizer", "strip_accents"},
        {"tokenize_chinese_chars", "normalizer", "BertNormalizer", "handle_chinese_chars"},
        {"add_prefix_space", "pre_tokenizer", "ByteLevel", "add_prefix_space"},
    };
    for (const Option& option : options) {
        const QJsonValue configured = config.value(QLatin1String(option.configKey));
        const QJsonObject component = root.value(QLatin1String(option.component)).toObject();
        if (!configured.isBool() || component.value(QStringLiteral("type")).toString() != QLatin1String(option.type))
            continue;
        const QJsonValue inJson = component.value(QLatin1String(option.field));
        if (inJson.isBool() && inJson.toBool() == configured.toBool())
            continue;
        const QString shown = inJson.isBool() ? (inJson.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
                                              : QStringLiteral("null");
        return Error{QStringLiteral("tokenizer_config.json: %1 %2 disagrees with tokenizer.json's %3.%4 %5")
                         .arg(QLatin1String(option.configKey),
                              configured.toBool() ? QStringLiteral("true") : QStringLiteral("false"),
                              QLatin1String(option.component), QLatin1String(option.field), shown)};
    }
    return Status::success();
}

}  // namespace

Result<std::unique_ptr<SubwordTokenizer>> TokenizerJsonReader::read(const QJsonObject& root, const QJsonObject& config)
{
    const Status agrees = checkConfigAgrees(root, config);
    if (!agrees)
        return Error{agrees.error()};
    SubwordTokenizer::Parts parts;
    Result<AddedVocabulary> added = readAddedTokens(root.value(QStringLiteral("added_tokens")));
    if (!added)
        return Error{added.error()};
    parts.added = std::move(added).value();
    Result<std::unique_ptr<TextNormalizer>> normalizer = optionalStep<TextNormalizer>(
        root.value(QStringLiteral("normalizer")), QStringLiteral("normalizer"), TokenizerJsonSteps::normalizer);
    if (!normalizer)
        return Error{normalizer.error()};
    parts.normalizer = std::move(normalizer).value();
    Result<std::unique_ptr<PreTokenizer>> preTokenizer = optionalStep<PreTokenizer>(
        root.value(QStringLiteral("pre_tokenizer")), QStringLiteral("pre_tokenizer"), TokenizerJsonSteps::preTokenizer);
    if (!preTokenizer)
        return Error{preTokenizer.error()};
    parts.preTokenizer = std::move(preTokenizer).value();
    Result<std::unique_ptr<SubwordModel>> model = readModel(root.value(QStringLiteral("model")));
    if (!model)
        return Error{model.error()};
    parts.model = std::move(model).value();
    int vocabSize = parts.model->idLimit();
    for (const AddedVocabulary::Entry& entry : parts.added.entries())
        vocabSize = std::max(vocabSize, entry.id + 1);
    Result<std::unique_ptr<PostProcessor>> postProcessor =
        TokenizerJsonPostProcessing::read(root.value(QStringLiteral("post_processor")), vocabSize);
    if (!postProcessor)
        return Error{postProcessor.error()};
    parts.postProcessor = std::move(postProcessor).value();
    Result<std::optional<TemplatePostProcessor>> configured =
        TokenizerJsonPostProcessing::configuredTemplate(config, parts);
    if (!configured)
        return Error{configured.error()};
    if (*configured)
        parts.postProcessor = std::make_unique<TemplatePostProcessor>(**configured);
    return std::make_unique<SubwordTokenizer>(std::move(parts));
}

}  // namespace attn
