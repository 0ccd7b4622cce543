#pragma once

// The default sentence through the default settings, as the window first shows it.
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/RunSettings.h"

#include <QtGlobal>

#include <memory>

namespace attn {

inline std::shared_ptr<const AttentionResult> defaultResult(bool causal = false)
{
    RunSettings config;
    config.causal = causal;
    auto result = AttentionPipeline::run(config, RunSettings::defaultSentence(), TraceDetail::Probabilities);
    if (!result)
        qFatal("%s", qPrintable(result.error()));
    return std::make_shared<const AttentionResult>(std::move(result).value());
}

}  // namespace attn
