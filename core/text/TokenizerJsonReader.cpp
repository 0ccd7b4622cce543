#include "core/text/TokenizerJsonReader.h"

#include "core/text/BpeModel.h"
#include "core/text/ByteLevelPostProcessor.h"
#include "core/text/JsonFieldReader.h"
#include "core/text/SequencePostProcessor.h"
#include "core/text/TemplatePostProcessor.h"
#include "core/text/TokenizerFiles.h"
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

// The id of a special token the post-processor adds must name a token of the vocabulary.
Result<int> checkedSpecialId(const QJsonValue& value, const QString& path, int vocabSize)
{
    const std::optional<int> id = TokenizerFiles::tokenId(value);
    if (!id || *id >= vocabSize)
        return fail(QStringLiteral("%1 is not an id of the vocabulary").arg(path));
    return *id;
}

Result<std::unique_ptr<PostProcessor>> readTemplate(const QJsonObject& object, int vocabSize)
{
    const QJsonObject specials = object.value(QStringLiteral("special_tokens")).toObject();
    const QJsonValue single = object.value(QStringLiteral("single"));
    if (!single.isArray())
        return fail(QStringLiteral("post_processor.single must be an array"));
    QList<TemplatePostProcessor::Part> parts;
    int sequences = 0;
    const QJsonArray pieces = single.toArray();
    for (qsizetype i = 0; i < pieces.size(); ++i) {
        const QString path = QStringLiteral("post_processor.single[%1]").arg(i);
        const QJsonObject piece = pieces[i].toObject();
        if (piece.contains(QStringLiteral("Sequence"))) {
            const QJsonValue id = piece.value(QStringLiteral("Sequence")).toObject().value(QStringLiteral("id"));
            if (id.toString() != QLatin1String("A"))
                return fail(path + QStringLiteral(" must be the sequence \"A\""));
            parts.append(TemplatePostProcessor::Part{true, {}});
            ++sequences;
            continue;
        }
        const QJsonValue name = piece.value(QStringLiteral("SpecialToken")).toObject().value(QStringLiteral("id"));
        if (!name.isString())
            return fail(path + QStringLiteral(" is neither a Sequence nor a SpecialToken"));
        const QJsonValue special = specials.value(name.toString());
        if (!special.isObject())
            return fail(
                QStringLiteral("post_processor.special_tokens has no %1").arg(TokenizerFiles::quoted(name.toString())));
        const QJsonArray ids = special.toObject().value(QStringLiteral("ids")).toArray();
        const QJsonArray tokens = special.toObject().value(QStringLiteral("tokens")).toArray();
        if (ids.isEmpty() || ids.size() != tokens.size())
            return fail(QStringLiteral("post_processor.special_tokens %1 must have as many ids as tokens, at least one")
                            .arg(TokenizerFiles::quoted(name.toString())));
        TemplatePostProcessor::Part part;
        for (qsizetype k = 0; k < ids.size(); ++k) {
            Result<int> id = checkedSpecialId(ids[k],
                                              QStringLiteral("post_processor.special_tokens %1 id %2")
                                                  .arg(TokenizerFiles::quoted(name.toString()))
                                                  .arg(ids[k].toDouble()),
                                              vocabSize);
            if (!id)
                return Error{id.error()};
            part.ids.append(*id);
        }
        parts.append(part);
    }
    if (sequences != 1)
        return fail(QStringLiteral("post_processor.single must hold the sequence \"A\" exactly once"));
    return std::unique_ptr<PostProcessor>(new TemplatePostProcessor(parts));
}

Result<std::unique_ptr<PostProcessor>> readBertProcessing(const QJsonObject& object, int vocabSize)
{
    QList<TemplatePostProcessor::Part> parts;
    for (const QString& key : {QStringLiteral("cls"), QStringLiteral("sep")}) {
        const QJsonArray pair = object.value(key).toArray();
        if (pair.size() != 2 || !pair[0].isString())
            return fail(QStringLiteral("post_processor.%1 must be [token, id]").arg(key));
        Result<int> id = checkedSpecialId(pair[1], QStringLiteral("post_processor.%1 id").arg(key), vocabSize);
        if (!id)
            return Error{id.error()};
        parts.append(TemplatePostProcessor::Part{false, {*id}});
        if (key == QLatin1String("cls"))
            parts.append(TemplatePostProcessor::Part{true, {}});
    }
    return std::unique_ptr<PostProcessor>(new TemplatePostProcessor(parts));
}

Result<std::unique_ptr<PostProcessor>> readByteLevelProcessing(const QJsonObject& object, const QString& path)
{
    const JsonFieldReader fields(object, kFile, path);
    Result<bool> trim = fields.boolean(QStringLiteral("trim_offsets"), true);
    Result<bool> prefix = fields.boolean(QStringLiteral("add_prefix_space"), true);
    for (const Result<bool>* flag : {&trim, &prefix})
        if (!*flag)
            return Error{flag->error()};
    return std::unique_ptr<PostProcessor>(new ByteLevelPostProcessor(*trim, *prefix));
}

Result<std::unique_ptr<PostProcessor>> readPostProcessor(const QJsonValue& value, int vocabSize,
                                                         const QString& path = QStringLiteral("post_processor"))
{
    if (value.isUndefined() || value.isNull())
        return std::unique_ptr<PostProcessor>();
    Result<QString> type = componentType(value, path);
    if (!type)
        return Error{type.error()};
    const QJsonObject object = value.toObject();
    if (*type == QLatin1String("TemplateProcessing"))
        return readTemplate(object, vocabSize);
    if (*type == QLatin1String("BertProcessing"))
        return readBertProcessing(object, vocabSize);
    if (*type == QLatin1String("ByteLevel"))
        return readByteLevelProcessing(object, path);
    if (*type == QLatin1String("RobertaProcessing")) {
        // <s> $A </s>, with the offsets trimmed as ByteLevel trims them.
        Result<std::unique_ptr<PostProcessor>> offsets = readByteLevelProcessing(object, path);
        if (!offsets)
            return Error{offsets.error()};
        Result<std::unique_ptr<PostProcessor>> specials = readBertProcessing(object, vocabSize);
        if (!specials)
            return Error{specials.error()};
        std::vector<std::unique_ptr<PostProcessor>> steps;
        steps.push_back(std::move(offsets).value());
        steps.push_back(std::move(specials).value());
        return std::unique_ptr<PostProcessor>(new SequencePostProcessor(std::move(steps)));
    }
    if (*type == QLatin1String("Sequence")) {
        const QJsonValue processors = object.value(QStringLiteral("processors"));
        if (!processors.isArray())
            return fail(path + QStringLiteral(".processors must be an array"));
        if (path.count(u'[') >= 8)
            return fail(path + QStringLiteral(": sequences nest too deep"));
        std::vector<std::unique_ptr<PostProcessor>> steps;
        const QJsonArray array = processors.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString stepPath = QStringLiteral("%1.processors[%2]").arg(path).arg(i);
            if (array[i].isNull())
                return fail(stepPath + QStringLiteral(" must be an object"));
            Result<std::unique_ptr<PostProcessor>> step = readPostProcessor(array[i], vocabSize, stepPath);
            if (!step)
                return Error{step.error()};
            steps.push_back(std::move(step).value());
        }
        return std::unique_ptr<PostProcessor>(new SequencePostProcessor(std::move(steps)));
    }
    return unsupported(path, *type);
}

// transformers' LlamaTokenizerFast and GPTNeoXTokenizerFast do not keep the post-processor of
// tokenizer.json: they write their own from tokenizer_config.json, `bos_token` first when
// add_bos_token (default: true for Llama, false for GPT-NeoX), `eos_token` last when
// add_eos_token (default false). Other classes (Llama 3's PreTrainedTokenizerFast, Qwen2's) keep
// the file's. Nothing when the class is none of these.
Result<std::optional<TemplatePostProcessor>> configuredTemplate(const QJsonObject& config,
                                                                const SubwordTokenizer::Parts& parts)
{
    const QString tokenizerClass = config.value(QStringLiteral("tokenizer_class")).toString();
    static const QStringList llama = {QStringLiteral("LlamaTokenizer"), QStringLiteral("LlamaTokenizerFast"),
                                      QStringLiteral("CodeLlamaTokenizer"), QStringLiteral("CodeLlamaTokenizerFast")};
    static const QStringList neox = {QStringLiteral("GPTNeoXTokenizer"), QStringLiteral("GPTNeoXTokenizerFast")};
    const bool isLlama = llama.contains(tokenizerClass);
    if (!isLlama && !neox.contains(tokenizerClass))
        return std::optional<TemplatePostProcessor>();
    // LlamaTokenizerFast given add_prefix_space rebuilds itself from SentencePiece's
    // tokenizer.model, which is not read here.
    if (isLlama && config.value(QStringLiteral("add_prefix_space")).isBool())
        return Error{QStringLiteral("tokenizer_config.json: add_prefix_space with %1 is not supported (transformers "
                                    "then rebuilds the tokenizer from tokenizer.model)")
                         .arg(tokenizerClass)};
    const JsonFieldReader fields(config, QStringLiteral("tokenizer_config.json"), QString());
    Result<bool> addBos = fields.boolean(QStringLiteral("add_bos_token"), isLlama);
    Result<bool> addEos = fields.boolean(QStringLiteral("add_eos_token"), false);
    for (const Result<bool>* flag : {&addBos, &addEos})
        if (!*flag)
            return Error{flag->error()};
    auto idOf = [&](const QString& key) -> Result<int> {
        const std::optional<QString> name = TokenizerFiles::tokenName(config.value(key));
        if (!name)
            return Error{QStringLiteral("tokenizer_config.json: add_%1 is true but %2 is not set").arg(key, key)};
        for (const AddedVocabulary::Entry& entry : parts.added.entries())
            if (entry.content == *name)
                return entry.id;
        if (const std::optional<int> id = parts.model->tokenToId(*name))
            return *id;
        return Error{QStringLiteral("tokenizer_config.json: %1 %2 is not a token of tokenizer.json")
                         .arg(key, TokenizerFiles::quoted(*name))};
    };
    QList<TemplatePostProcessor::Part> single;
    if (*addBos) {
        Result<int> bos = idOf(QStringLiteral("bos_token"));
        if (!bos)
            return Error{bos.error()};
        single.append(TemplatePostProcessor::Part{false, {*bos}});
    }
    single.append(TemplatePostProcessor::Part{true, {}});
    if (*addEos) {
        Result<int> eos = idOf(QStringLiteral("eos_token"));
        if (!eos)
            return Error{eos.error()};
        single.append(TemplatePostProcessor::Part{false, {*eos}});
    }
    return std::optional<TemplatePostProcessor>(TemplatePostProcessor(single));
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
        readPostProcessor(root.value(QStringLiteral("post_processor")), vocabSize);
    if (!postProcessor)
        return Error{postProcessor.error()};
    parts.postProcessor = std::move(postProcessor).value();
    Result<std::optional<TemplatePostProcessor>> configured = configuredTemplate(config, parts);
    if (!configured)
        return Error{configured.error()};
    if (*configured)
        parts.postProcessor = std::make_unique<TemplatePostProcessor>(**configured);
    return std::make_unique<SubwordTokenizer>(std::move(parts));
}

}  // namespace attn
