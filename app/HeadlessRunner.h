#pragma once

#include "app/CommandLine.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/MemoryPlan.h"

#include <QTextStream>

namespace attn {

// Runs the command line without a window: computes, writes --json and --export, and turns
// every failure into the one `error:` line of the contract. --model goes to ModelCommand.
class HeadlessRunner {
public:
    // Returns the process exit status; errors go to `err` as one line.
    static int run(const CommandLineOptions& options, QTextStream& out, QTextStream& err);

    // The computation the options ask for.
    static Result<AttentionResult> compute(const CommandLineOptions& options, TraceDetail detail);
    // What computing, drawing (--export, --view) and writing (--json) a pass of T_q queries and
    // T_kv keys (0: self-attention) will take, and that against --memory-budget (else the
    // default budget): refused before anything of T_q x T_kv size is allocated.
    static MemoryRequest memoryRequest(const CommandLineOptions& options, int query_len, int key_len,
                                       const AttentionWeights& weights, TraceDetail detail);
    static Status checkMemory(const CommandLineOptions& options, int query_len, int key_len,
                              const AttentionWeights& weights, TraceDetail detail);

private:
    // --json and --export (--model: ModelCommand); run adds --save-session once they succeeded.
    static int runOutputs(const CommandLineOptions& options, QTextStream& out, QTextStream& err);
};

}  // namespace attn
