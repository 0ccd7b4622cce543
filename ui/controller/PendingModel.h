#pragma once

#include "core/base/Result.h"
#include "core/model/ModelSession.h"

#include <QString>

#include <memory>
#include <mutex>

namespace attn {

// A model folder still to be read, shared by every job that needs it, as PendingWeights: the
// first job that runs opens it on the worker (ModelSession::open, the command line's policy too),
// the jobs after it find it opened (or refused).
class PendingModel {
public:
    explicit PendingModel(const QString& dir) : m_dir(dir) {}
    const QString& dir() const { return m_dir; }

    // Opens the folder on the first call (any thread); later calls return the same outcome. A
    // refusal names the folder and the file: "gpt2: config.json: n_head: ...".
    Result<std::shared_ptr<const ModelSession>> get();

private:
    const QString m_dir;
    std::mutex m_mutex;
    bool m_done = false;
    std::shared_ptr<const ModelSession> m_session;
    QString m_error;
};

}  // namespace attn
