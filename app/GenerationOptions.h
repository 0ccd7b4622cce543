#pragma once

#include "core/base/Result.h"
#include "core/model/ModelSession.h"
#include "core/model/SamplingSettings.h"
#include "core/model/TokenGeneration.h"

#include <memory>
#include <vector>

class QCommandLineParser;

namespace attn {

// Generation, with --model (docs/command-line.md): --generate N appends up to N tokens to the
// input, greedy, or sampled with --temperature X --sample-seed S [--sample-top-k K]
// [--sample-top-p P]; everything the command writes or draws then describes the final sequence.
struct GenerationOptions {
    int max_new_tokens = 0;  // 0: no --generate
    SamplingSettings sampling;

    bool any() const { return max_new_tokens > 0; }
};

class GenerationCommandLine {
public:
    static const char* const kValued[];  // the options' names, each taking a value
    // Checks what needs no model folder: the numbers, each sampling option only with --generate,
    // --generate only with --model and --json or --export.
    static Result<GenerationOptions> parse(const QCommandLineParser& parser);

    // The generation on the folder's model from `prompt` (checked by TransformerForward::checkInput
    // already): its eos ids read, planned (refusals named "--generate N: ..."), then run.
    static Result<std::unique_ptr<TokenGeneration>> run(const GenerationOptions& options, const ModelSession& session,
                                                        const std::vector<int>& prompt, int selected_layer,
                                                        bool keep_residual_stream);
};

}  // namespace attn
