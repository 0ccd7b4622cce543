#pragma once

#include "core/pipeline/AttentionResult.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

#include <memory>

namespace attn {

// A result shared with the views, freed off the GUI thread when it is large. The views drop the
// last reference to a result on the GUI thread as the next one arrives; freeing a long input's
// weights there (1.6 GB at 20,000 tokens) returns every page to the kernel while the window waits.
inline std::shared_ptr<const AttentionResult> shareResult(AttentionResult&& result)
{
    constexpr std::int64_t kFreedOnThePool = std::int64_t(64) << 20;  // bytes of weights
    std::int64_t bytes = 0;
    for (const Matrix& weights : result.trace.weights)
        bytes += std::int64_t(weights.size()) * std::int64_t(sizeof(float));
    if (bytes < kFreedOnThePool)
        return std::make_shared<const AttentionResult>(std::move(result));
    return std::shared_ptr<const AttentionResult>(
        new AttentionResult(std::move(result)), [](const AttentionResult* large) {
            const QCoreApplication* app = QCoreApplication::instance();
            if (app && QThread::currentThread() == app->thread())
                QThreadPool::globalInstance()->start([large] { delete large; });
            else
                delete large;
        });
}

}  // namespace attn
