#pragma once

#include "app/CommandLine.h"
#include "core/pipeline/AttentionResult.h"

#include <QTextStream>

namespace attn {

// Runs the command line without a window: computes, writes --json and --export, and turns
// every failure into the one `error:` line of the contract.
class HeadlessRunner {
public:
    // Returns the process exit status; errors go to `err` as one line.
    static int run(const CommandLineOptions& options, QTextStream& out, QTextStream& err);

    // The computation the options ask for, shared with the window's start-up.
    static Result<AttentionResult> compute(const CommandLineOptions& options, TraceDetail detail);

    // --export of one result as --view, --head, --compare and --size ask (with its own `--export`
    // error prefix); nothing when there is no --export.
    static Status exportPicture(const AttentionResult& result, const CommandLineOptions& options);
    // Writes a document atomically to `path`, or to standard output for "-".
    static Status writeOutput(const QString& path, const QByteArray& data);
};

}  // namespace attn
