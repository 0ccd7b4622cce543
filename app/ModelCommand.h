#pragma once

#include "app/CommandLine.h"

#include <QTextStream>

namespace attn {

// --model DIR headless: loads the folder, tokenizes (or takes --token-ids), runs the whole model,
// and writes --json (the "Real models" schema) and --export (the selected layer, drawn by the
// single-layer views). Every failure is the contract's one `error:` line.
class ModelCommand {
public:
    static int run(const CommandLineOptions& options, QTextStream& out, QTextStream& err);
};

}  // namespace attn
