#include "core/text/TokenizerJsonPostProcessing.h"

#include "core/text/ByteLevelPostProcessor.h"
#include "core/text/JsonFieldReader.h"
#include "core/text/SequencePostProcessor.h"
#include "core/text/TokenizerFiles.h"
#include "core/text/TokenizerJsonSteps.h"

#include <QJsonArray>

namespace attn {
namespace {

const QString kFile = QStringLiteral("tokenizer.json");

Error fail(const QString& problem)
{
    return TokenizerJsonSteps::fail(problem);
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

}  // namespace

Result<std::unique_ptr<PostProcessor>> TokenizerJsonPostProcessing::read(const QJsonValue& value, int vocabSize,
                                                                         const QString& path)
{
    if (value.isUndefined() || value.isNull())
        return std::unique_ptr<PostProcessor>();
    Result<QString> type = TokenizerJsonSteps::componentType(value, path);
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
            Result<std::unique_ptr<PostProcessor>> step = read(array[i], vocabSize, stepPath);
            if (!step)
                return Error{step.error()};
            steps.push_back(std::move(step).value());
        }
        return std::unique_ptr<PostProcessor>(new SequencePostProcessor(std::move(steps)));
    }
    return TokenizerJsonSteps::unsupported(path, *type);
}

// transformers' LlamaTokenizerFast and GPTNeoXTokenizerFast do not keep the post-processor of
// tokenizer.json: they write their own from tokenizer_config.json, `bos_token` first when
// add_bos_token (default: true for Llama, false for GPT-NeoX), `eos_token` last when
// add_eos_token (default false). Other classes (Llama 3's PreTrainedTokenizerFast, Qwen2's) keep
// the file's. Nothing when the class is none of these.
Result<std::optional<TemplatePostProcessor>> TokenizerJsonPostProcessing::configuredTemplate(
    const QJsonObject& config, const SubwordTokenizer::Parts& parts)
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

}  // namespace attn
