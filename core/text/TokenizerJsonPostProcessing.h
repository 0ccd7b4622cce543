#pragma once

// Reading the post-processor of tokenizer.json (TokenizerJsonReader.h lists the types), and the
// template transformers' LlamaTokenizerFast and GPTNeoXTokenizerFast write in its place from
// tokenizer_config.json.

#include "core/base/Result.h"
#include "core/text/SubwordTokenizer.h"
#include "core/text/TemplatePostProcessor.h"

#include <QJsonObject>
#include <QJsonValue>

#include <memory>
#include <optional>

namespace attn {

class TokenizerJsonPostProcessing {
public:
    // Null or absent: no post-processor. `vocabSize`: one past the highest id, added tokens included.
    static Result<std::unique_ptr<PostProcessor>> read(const QJsonValue& value, int vocabSize,
                                                       const QString& path = QStringLiteral("post_processor"));
    // The template LlamaTokenizerFast / GPTNeoXTokenizerFast build from `config`
    // (add_bos_token, add_eos_token, bos_token, eos_token); nothing for other classes.
    static Result<std::optional<TemplatePostProcessor>> configuredTemplate(const QJsonObject& config,
                                                                           const SubwordTokenizer::Parts& parts);
};

}  // namespace attn
