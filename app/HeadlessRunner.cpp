#include "app/HeadlessRunner.h"

#include "app/ExportOptions.h"
#include "app/JsonOutput.h"
#include "app/ModelCommand.h"
#include "core/io/NpyReader.h"
#include "core/analysis/AttentionDisplay.h"
#include "core/lens/AttentionNorms.h"
#include "core/pipeline/AttentionPipeline.h"
#include "core/pipeline/MemoryPlan.h"
#include "core/report/JsonReport.h"
#include "core/text/WordSplitter.h"
#include "core/weights/WeightFile.h"
#include "ui/export/ViewExporter.h"

#include <QFileInfo>

#include <optional>

namespace attn {

MemoryRequest HeadlessRunner::memoryRequest(const CommandLineOptions& options, int query_len, int key_len,
                                            const AttentionWeights& weights, TraceDetail detail)
{
    MemoryRequest request = MemoryPlan::forPass(query_len, key_len, weights, detail);
    request.json = !options.json_path.isEmpty();
    request.masked = options.config.causal || !options.config.padded_keys.isEmpty();
    if (options.export_path.isEmpty())
        return request;
    const ViewRow& row = ViewRegistry::row(options.view);  // a view of a whole model: refused before this
    request.view_copies = row.heatmaps_per_head * weights.num_heads + row.heatmaps;
    request.extra_matrices = row.extra_matrices;
    request.view_cells = ViewExporter::heatmapCellLimit();
    return request;
}

Status HeadlessRunner::checkMemory(const CommandLineOptions& options, int query_len, int key_len,
                                   const AttentionWeights& weights, TraceDetail detail)
{
    const std::int64_t budget = options.memory_budget > 0 ? options.memory_budget : MemoryPlan::defaultBudget();
    if (Status s = MemoryPlan::check(memoryRequest(options, query_len, key_len, weights, detail), budget); !s)
        return Error{QStringLiteral("%1 (--memory-budget)").arg(s.error())};
    return {};
}

Result<AttentionResult> HeadlessRunner::compute(const CommandLineOptions& options, TraceDetail detail)
{
    // A weight file that states no number of heads needs --heads: said by the option, as the
    // settings' own refusals are (the loader's message names no option: the window has none).
    if (options.config.weight_source == RunSettings::WeightSource::File && !options.heads_given) {
        const auto declared = WeightFile::declaredNumHeads(options.config.weights_file);
        if (declared && !declared->has_value())
            return Error{QStringLiteral("%1: %2 states no number of heads; give it with --heads N")
                             .arg(CommandLine::optionFor(SettingField::Heads),
                                  QFileInfo(options.config.weights_file).fileName())};
    }
    if (!options.isCross() && options.config.padded_keys.isEmpty() && options.input_path.isEmpty()) {
        // AttentionPipeline::run(config, sentence), with the memory planned before computing.
        TokenList tokens = WordSplitter::split(options.sentence);
        if (tokens.isEmpty())
            return Error{QStringLiteral("the sentence has no tokens")};
        auto weights = AttentionPipeline::buildWeights(options.config);
        if (!weights)
            return Error{weights.error()};
        if (Status s = checkMemory(options, int(tokens.size()), 0, weights->weights, detail); !s)
            return Error{s.error()};
        RunSettings sized = options.config;  // loaded weights fix the input dimension
        sized.input_dim = weights->weights.inputDim();
        return AttentionPipeline::run(options.config, AttentionPipeline::inputFromTokens(std::move(tokens), sized),
                                      weights.value(), detail);
    }

    // A sentence is checked before the weights are built, as AttentionPipeline::run does.
    const auto sentenceTokens = [](const QString& option, const QString& sentence) -> Result<TokenList> {
        TokenList tokens = WordSplitter::split(sentence);
        if (tokens.isEmpty())
            return Error{QStringLiteral("%1: the sentence has no tokens").arg(option)};
        return tokens;
    };
    // --input and --kv-input: the rows are given, so there are no embeddings and no positional encoding.
    const auto matrixInput = [](const QString& option, const QString& path,
                                const QStringList& labels) -> Result<AttentionInput> {
        auto x = NpyReader::readMatrixFile(path);
        if (!x)
            return Error{QStringLiteral("%1 %2").arg(option, x.error())};
        auto input = AttentionPipeline::inputFromMatrix(std::move(x).value(), labels);
        if (!input)
            return Error{QStringLiteral("%1 %2: %3").arg(option, path, input.error())};
        return input;
    };

    RunSettings config = options.config;
    std::optional<AttentionInput> query_rows;  // (query_len, input_dim) from --input
    std::optional<TokenList> query_tokens;
    if (!options.input_path.isEmpty()) {
        auto rows = matrixInput(QStringLiteral("--input"), options.input_path, options.token_labels);
        if (!rows)
            return Error{rows.error()};
        query_rows = std::move(rows).value();
        config.positional_encoding = false;
        if (config.input_dim == 0)
            config.input_dim = int(query_rows->x.cols());
    } else {
        auto tokens = sentenceTokens(QStringLiteral("--sentence"), options.sentence);
        if (!tokens)
            return Error{tokens.error()};
        query_tokens = std::move(tokens).value();
    }
    std::optional<TokenList> kv_tokens;
    if (!options.kv_sentence.isEmpty()) {
        auto tokens = sentenceTokens(QStringLiteral("--kv-sentence"), options.kv_sentence);
        if (!tokens)
            return Error{tokens.error()};
        kv_tokens = std::move(tokens).value();
    }

    auto weights = AttentionPipeline::buildWeights(config);
    if (!weights)
        return Error{weights.error()};
    const int input_dim = weights->weights.inputDim();
    // Loaded weights fix the input dimension: sentences are embedded at the file's size.
    RunSettings sized = options.config;
    sized.input_dim = input_dim;
    const auto checkColumns = [input_dim](const QString& option, const QString& path,
                                          const AttentionInput& rows) -> Status {
        if (rows.x.cols() != input_dim)
            return Error{QStringLiteral("%1 %2: the rows have %3 columns, the weights expect %4")
                             .arg(option, path)
                             .arg(rows.x.cols())
                             .arg(input_dim)};
        return {};
    };

    AttentionInput queries;
    if (query_rows) {
        if (Status s = checkColumns(QStringLiteral("--input"), options.input_path, *query_rows); !s)
            return Error{s.error()};
        queries = std::move(*query_rows);
    } else {
        queries = AttentionPipeline::inputFromTokens(std::move(*query_tokens), sized);
    }
    AttentionInput keys;  // no tokens: self-attention
    if (kv_tokens) {
        keys = AttentionPipeline::inputFromTokens(std::move(*kv_tokens), sized);
    } else if (!options.kv_input_path.isEmpty()) {
        auto rows = matrixInput(QStringLiteral("--kv-input"), options.kv_input_path, {});
        if (!rows)
            return Error{rows.error()};
        if (Status s = checkColumns(QStringLiteral("--kv-input"), options.kv_input_path, *rows); !s)
            return Error{s.error()};
        keys = std::move(rows).value();
    }
    const int key_len = int(keys.tokens.isEmpty() ? queries.tokens.size() : keys.tokens.size());
    if (auto padding = AttentionPipeline::keyPadding(config, key_len); !padding)
        return Error{QStringLiteral("--pad-keys: %1").arg(padding.error())};
    if (Status s = checkMemory(options, int(queries.tokens.size()), keys.tokens.isEmpty() ? 0 : key_len,
                               weights->weights, detail);
        !s)
        return Error{s.error()};
    return AttentionPipeline::run(config, std::move(queries), std::move(keys), weights.value(), detail);
}

int HeadlessRunner::run(const CommandLineOptions& options, QTextStream& out, QTextStream& err)
{
    const int status = runOutputs(options, out, err);
    if (status != 0 || options.save_session_path.isEmpty())
        return status;
    // --save-session: written last, so a run that fails leaves no session behind.
    if (Status s = options.session_to_save.write(options.save_session_path); !s) {
        err << "error: --save-session " << s.error() << '\n';
        err.flush();
        return 1;
    }
    return 0;
}

int HeadlessRunner::runOutputs(const CommandLineOptions& options, QTextStream& out, QTextStream& err)
{
    auto fail = [&](const QString& message) {
        err << "error: " << message << '\n';
        err.flush();
        return 1;
    };
    if (!options.model_dir.isEmpty())
        return ModelCommand::run(options, out, err);

    auto result = compute(options, TraceDetail::Probabilities);
    if (!result)
        return fail(result.error());
    if (Status s = ExportOptions::checkHeads(options, result->numHeads()); !s)
        return fail(s.error());
    std::optional<Matrix> value_norms;  // --attention-kind norms: (H, T_kv)
    if (options.heads.attention_norms) {
        auto weights = AttentionPipeline::buildWeights(options.config);  // the same weights again, for W_O
        if (!weights)
            return fail(weights.error());
        const AttentionWeights& w = weights->weights;
        value_norms = AttentionNorms::valueNorms(result->trace.v, w.num_heads, w.kvHeads(), w.out_proj);
    }
    if (!options.export_path.isEmpty()) {
        // --attention-kind norms: every view draws ||A_ij f(x_j)|| in place of the weights.
        std::optional<AttentionResult> weighted;
        if (value_norms) {
            auto norms = AttentionDisplay::withValueNorms(*result, *value_norms);
            if (!norms)
                return fail(QStringLiteral("--attention-kind norms: %1").arg(norms.error()));
            weighted = std::move(norms).value();
        }
        if (Status s = ExportOptions::exportResult(options, weighted ? *weighted : *result); !s)
            return fail(QStringLiteral("--export %1").arg(s.error()));
    }
    if (!options.json_path.isEmpty()) {
        // The document written as it is made (JsonReport::write): its text is never whole in memory.
        const auto document = [&](QIODevice& device) -> Status {
            if (JsonReport::write(*result, device, options.json_trace, -1, value_norms ? &*value_norms : nullptr))
                return {};
            if (options.json_path == u"-")
                return Error{QStringLiteral("cannot write to standard output")};
            return Error{QStringLiteral("cannot write: %1").arg(device.errorString())};
        };
        if (Status s = JsonOutput::write(options.json_path, out, document); !s)
            return fail(s.error());
    }
    return 0;
}

}  // namespace attn
