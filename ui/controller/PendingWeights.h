#pragma once

#include "core/base/Result.h"
#include "core/pipeline/RunSettings.h"
#include "core/weights/LoadedWeights.h"

#include <memory>
#include <mutex>

namespace attn {

// Weights that are still to be built (random, identity) or read from a file, shared by every job
// of the same settings: the first job that runs builds or loads them, on the worker thread, and
// the jobs after it find them there, so a file is read once however many keystrokes arrive while
// it loads. The GUI thread adopts them (or reports the refusal) when a job delivers.
class PendingWeights {
public:
    // error_field: the setting a refusal is reported against (Weights, or Layer when only the
    // layer of the file in use changed).
    PendingWeights(const RunSettings& config, SettingField error_field);

    const RunSettings& config() const { return m_config; }
    SettingField errorField() const { return m_error_field; }
    bool readsFile() const { return m_config.weight_source == RunSettings::WeightSource::File; }

    // Builds or loads them on the first call (any thread); later calls return the same outcome.
    // A refusal names the file: "model.safetensors: layer 3 is out of range: ...".
    Result<std::shared_ptr<const LoadedWeights>> get();

private:
    const RunSettings m_config;
    const SettingField m_error_field;
    std::mutex m_mutex;
    bool m_done = false;
    std::shared_ptr<const LoadedWeights> m_weights;
    QString m_error;
};

}  // namespace attn
