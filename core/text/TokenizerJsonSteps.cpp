#include "core/text/TokenizerJsonSteps.h"

#include "core/text/BertNormalizer.h"
#include "core/text/BertPreTokenizer.h"
#include "core/text/ByteLevelPreTokenizer.h"
#include "core/text/DigitsPreTokenizer.h"
#include "core/text/JsonFieldReader.h"
#include "core/text/LowercaseNormalizer.h"
#include "core/text/MetaspacePreTokenizer.h"
#include "core/text/OnigPattern.h"
#include "core/text/PrependNormalizer.h"
#include "core/text/ReplaceNormalizer.h"
#include "core/text/SequenceNormalizer.h"
#include "core/text/SequencePreTokenizer.h"
#include "core/text/SplitPreTokenizer.h"
#include "core/text/TokenizerFiles.h"
#include "core/text/UnicodeFormNormalizer.h"

#include <QJsonArray>
#include <QJsonObject>

namespace attn {
namespace {

const QString kFile = QStringLiteral("tokenizer.json");
// Sequences inside sequences: real files nest one level; this bounds the recursion on bad input.
constexpr int kMaxDepth = 8;

int depthOf(const QString& path)
{
    return int(path.count(u'['));
}

// {"String": s} (a literal) or {"Regex": r}.
Result<QRegularExpression> readPattern(const JsonFieldReader& fields)
{
    const QJsonObject pattern = fields.object().value(QStringLiteral("pattern")).toObject();
    if (pattern.size() == 1 && pattern.value(QStringLiteral("String")).isString()) {
        const QString literal = pattern.value(QStringLiteral("String")).toString();
        if (literal.isEmpty())
            return fields.error(QStringLiteral("pattern"), QStringLiteral("is an empty string"));
        return OnigPattern::literal(literal);
    }
    if (pattern.size() == 1 && pattern.value(QStringLiteral("Regex")).isString()) {
        Result<QRegularExpression> regex = OnigPattern::compile(pattern.value(QStringLiteral("Regex")).toString());
        if (!regex)
            return fields.error(QStringLiteral("pattern"), regex.error());
        return regex;
    }
    return fields.error(QStringLiteral("pattern"), QStringLiteral("must be {\"String\": …} or {\"Regex\": …}"));
}

Result<std::unique_ptr<TextNormalizer>> readBertNormalizer(const JsonFieldReader& fields)
{
    Result<bool> cleanText = fields.boolean(QStringLiteral("clean_text"), true);
    Result<bool> chinese = fields.boolean(QStringLiteral("handle_chinese_chars"), true);
    Result<bool> lowercase = fields.boolean(QStringLiteral("lowercase"), true);
    Result<std::optional<bool>> stripAccents = fields.optionalBoolean(QStringLiteral("strip_accents"));
    for (const Result<bool>* flag : {&cleanText, &chinese, &lowercase})
        if (!*flag)
            return Error{flag->error()};
    if (!stripAccents)
        return Error{stripAccents.error()};
    BertNormalizer::Options options;
    options.cleanText = *cleanText;
    options.handleChineseChars = *chinese;
    options.lowercase = *lowercase;
    options.stripAccents = stripAccents->value_or(*lowercase);
    return std::unique_ptr<TextNormalizer>(new BertNormalizer(options));
}

// A non-empty string field.
Result<QString> requiredString(const JsonFieldReader& fields, const QString& key)
{
    const QJsonValue value = fields.object().value(key);
    if (!value.isString())
        return fields.error(key, QStringLiteral("must be a string"));
    return value.toString();
}

Result<QJsonArray> stepArray(const JsonFieldReader& fields, const QString& key, const QString& path)
{
    if (depthOf(path) >= kMaxDepth)
        return TokenizerJsonSteps::fail(path + QStringLiteral(": sequences nest too deep"));
    const QJsonValue steps = fields.object().value(key);
    if (!steps.isArray())
        return fields.error(key, QStringLiteral("must be an array"));
    return steps.toArray();
}

Result<std::unique_ptr<PreTokenizer>> readSplit(const JsonFieldReader& fields)
{
    static const std::pair<const char*, SplitPreTokenizer::Behaviour> kBehaviours[] = {
        {"Isolated", SplitPreTokenizer::Behaviour::Isolated},
        {"Removed", SplitPreTokenizer::Behaviour::Removed},
        {"MergedWithPrevious", SplitPreTokenizer::Behaviour::MergedWithPrevious},
        {"MergedWithNext", SplitPreTokenizer::Behaviour::MergedWithNext},
        {"Contiguous", SplitPreTokenizer::Behaviour::Contiguous},
    };
    Result<QRegularExpression> pattern = readPattern(fields);
    if (!pattern)
        return Error{pattern.error()};
    Result<QString> behaviourName = requiredString(fields, QStringLiteral("behavior"));
    if (!behaviourName)
        return Error{behaviourName.error()};
    Result<bool> invert = fields.boolean(QStringLiteral("invert"), false);
    if (!invert)
        return Error{invert.error()};
    for (const auto& [name, behaviour] : kBehaviours)
        if (*behaviourName == QLatin1String(name))
            return std::unique_ptr<PreTokenizer>(new SplitPreTokenizer(*pattern, behaviour, *invert));
    return fields.error(QStringLiteral("behavior"),
                        QStringLiteral("%1 is not supported").arg(TokenizerFiles::quoted(*behaviourName)));
}

Result<std::unique_ptr<PreTokenizer>> readMetaspace(const JsonFieldReader& fields)
{
    Result<QString> replacement = fields.string(QStringLiteral("replacement"), QStringLiteral("\u2581"));
    if (!replacement)
        return Error{replacement.error()};
    if (replacement->toUcs4().size() != 1)
        return fields.error(QStringLiteral("replacement"), QStringLiteral("must be one character"));
    if (fields.has(QStringLiteral("str_rep"))) {
        Result<QString> strRep = fields.string(QStringLiteral("str_rep"), *replacement);
        if (!strRep)
            return Error{strRep.error()};
        if (*strRep != *replacement)
            return fields.error(QStringLiteral("str_rep"), QStringLiteral("differs from replacement"));
    }
    Result<bool> split = fields.boolean(QStringLiteral("split"), true);
    Result<bool> addPrefixSpace = fields.boolean(QStringLiteral("add_prefix_space"), true);
    Result<QString> scheme = fields.string(QStringLiteral("prepend_scheme"), QString());
    for (const Result<bool>* flag : {&split, &addPrefixSpace})
        if (!*flag)
            return Error{flag->error()};
    if (!scheme)
        return Error{scheme.error()};
    MetaspacePreTokenizer::Prepend prepend =
        *addPrefixSpace ? MetaspacePreTokenizer::Prepend::Always : MetaspacePreTokenizer::Prepend::Never;
    if (*scheme == QLatin1String("always"))
        prepend = MetaspacePreTokenizer::Prepend::Always;
    else if (*scheme == QLatin1String("first"))
        prepend = MetaspacePreTokenizer::Prepend::First;
    else if (*scheme == QLatin1String("never"))
        prepend = MetaspacePreTokenizer::Prepend::Never;
    else if (!scheme->isEmpty())
        return fields.error(QStringLiteral("prepend_scheme"),
                            QStringLiteral("%1 is not supported").arg(TokenizerFiles::quoted(*scheme)));
    return std::unique_ptr<PreTokenizer>(new MetaspacePreTokenizer(replacement->toUcs4().first(), prepend, *split));
}

}  // namespace

Error TokenizerJsonSteps::fail(const QString& problem)
{
    return Error{kFile + QStringLiteral(": ") + problem};
}

Result<QString> TokenizerJsonSteps::componentType(const QJsonValue& value, const QString& path)
{
    if (!value.isObject())
        return fail(QStringLiteral("%1 must be null or an object").arg(path));
    const QJsonValue type = value.toObject().value(QStringLiteral("type"));
    if (!type.isString())
        return fail(QStringLiteral("%1 has no \"type\"").arg(path));
    return type.toString();
}

Error TokenizerJsonSteps::unsupported(const QString& path, const QString& type)
{
    return fail(QStringLiteral("%1 type %2 is not supported").arg(path, TokenizerFiles::quoted(type)));
}

Result<std::unique_ptr<TextNormalizer>> TokenizerJsonSteps::normalizer(const QJsonValue& value, const QString& path)
{
    Result<QString> type = componentType(value, path);
    if (!type)
        return Error{type.error()};
    const JsonFieldReader fields(value.toObject(), kFile, path);
    static const std::pair<const char*, QString::NormalizationForm> kForms[] = {
        {"NFC", QString::NormalizationForm_C},
        {"NFD", QString::NormalizationForm_D},
        {"NFKC", QString::NormalizationForm_KC},
        {"NFKD", QString::NormalizationForm_KD},
    };
    for (const auto& [name, form] : kForms)
        if (*type == QLatin1String(name))
            return std::unique_ptr<TextNormalizer>(new UnicodeFormNormalizer(form));
    if (*type == QLatin1String("BertNormalizer"))
        return readBertNormalizer(fields);
    if (*type == QLatin1String("Lowercase"))
        return std::unique_ptr<TextNormalizer>(new LowercaseNormalizer);
    if (*type == QLatin1String("Prepend")) {
        Result<QString> prefix = requiredString(fields, QStringLiteral("prepend"));
        if (!prefix)
            return Error{prefix.error()};
        return std::unique_ptr<TextNormalizer>(new PrependNormalizer(*prefix));
    }
    if (*type == QLatin1String("Replace")) {
        Result<QRegularExpression> pattern = readPattern(fields);
        if (!pattern)
            return Error{pattern.error()};
        Result<QString> content = requiredString(fields, QStringLiteral("content"));
        if (!content)
            return Error{content.error()};
        return std::unique_ptr<TextNormalizer>(new ReplaceNormalizer(*pattern, *content));
    }
    if (*type == QLatin1String("Sequence")) {
        Result<QJsonArray> array = stepArray(fields, QStringLiteral("normalizers"), path);
        if (!array)
            return Error{array.error()};
        std::vector<std::unique_ptr<TextNormalizer>> steps;
        for (qsizetype i = 0; i < array->size(); ++i) {
            auto step = normalizer(array->at(i), QStringLiteral("%1.normalizers[%2]").arg(path).arg(i));
            if (!step)
                return Error{step.error()};
            steps.push_back(std::move(step).value());
        }
        return std::unique_ptr<TextNormalizer>(new SequenceNormalizer(std::move(steps)));
    }
    return unsupported(path, *type);
}

Result<std::unique_ptr<PreTokenizer>> TokenizerJsonSteps::preTokenizer(const QJsonValue& value, const QString& path)
{
    Result<QString> type = componentType(value, path);
    if (!type)
        return Error{type.error()};
    const JsonFieldReader fields(value.toObject(), kFile, path);
    if (*type == QLatin1String("BertPreTokenizer"))
        return std::unique_ptr<PreTokenizer>(new BertPreTokenizer);
    if (*type == QLatin1String("ByteLevel")) {
        Result<bool> prefix = fields.boolean(QStringLiteral("add_prefix_space"), true);
        Result<bool> useRegex = fields.boolean(QStringLiteral("use_regex"), true);
        Result<bool> trim = fields.boolean(QStringLiteral("trim_offsets"), true);  // no effect on words
        for (const Result<bool>* flag : {&prefix, &useRegex, &trim})
            if (!*flag)
                return Error{flag->error()};
        return std::unique_ptr<PreTokenizer>(new ByteLevelPreTokenizer(*prefix, *useRegex));
    }
    if (*type == QLatin1String("Split"))
        return readSplit(fields);
    if (*type == QLatin1String("Metaspace"))
        return readMetaspace(fields);
    if (*type == QLatin1String("Digits")) {
        Result<bool> individual = fields.boolean(QStringLiteral("individual_digits"), false);
        if (!individual)
            return Error{individual.error()};
        return std::unique_ptr<PreTokenizer>(new DigitsPreTokenizer(*individual));
    }
    if (*type == QLatin1String("Sequence")) {
        Result<QJsonArray> array = stepArray(fields, QStringLiteral("pretokenizers"), path);
        if (!array)
            return Error{array.error()};
        std::vector<std::unique_ptr<PreTokenizer>> steps;
        for (qsizetype i = 0; i < array->size(); ++i) {
            auto step = preTokenizer(array->at(i), QStringLiteral("%1.pretokenizers[%2]").arg(path).arg(i));
            if (!step)
                return Error{step.error()};
            steps.push_back(std::move(step).value());
        }
        return std::unique_ptr<PreTokenizer>(new SequencePreTokenizer(std::move(steps)));
    }
    return unsupported(path, *type);
}

}  // namespace attn
