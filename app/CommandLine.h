#pragma once

#include "app/GenerationOptions.h"
#include "app/HeadsOptions.h"
#include "app/InterventionOptions.h"
#include "app/PatchingOptions.h"
#include "core/analysis/AttentionRollout.h"
#include "core/analysis/HeadScores.h"
#include "core/base/Result.h"
#include "core/io/Session.h"
#include "core/pipeline/RunSettings.h"
#include "core/pipeline/SettingField.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeadAggregate.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/registry/ViewRegistry.h"

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace attn {

// Everything the command line can say (docs/command-line.md), parsed and checked.
struct CommandLineOptions {
    RunSettings config;
    QString sentence = RunSettings::defaultSentence();
    QString input_path;        // --input FILE.npy, instead of the sentence
    QStringList token_labels;  // --tokens A,B,C
    // Cross-attention: keys and values from a second input, --kv-sentence TEXT or --kv-input FILE.npy.
    QString kv_sentence;
    QString kv_input_path;
    bool heads_given = false;
    // --model DIR: a whole pretrained model from a Hugging Face folder, headless only; the
    // model's layer is config.layer. --token-ids: its input ids as given (else --sentence).
    QString model_dir;
    std::vector<int> token_ids;
    bool token_ids_given = false;
    // Across layers (with --model): how --json's "rollout" fuses each layer's heads and how much of
    // the residual it mixes in (--rollout-fusion, --residual-weight).
    HeadFusion rollout_fusion = HeadFusion::Mean;
    double residual_weight = 0.5;
    // --induction-probe N (an addition, with --model): the input is N random ids given twice.
    int induction_probe = 0;
    // --mark-heads S (an addition, --view model): every head framed by its score S.
    std::optional<HeadScoreKind> mark_heads;
    // --sort-heads S (an addition, --view model): each layer's heads drawn highest score S first.
    std::optional<HeadOrderKind> sort_heads;  // none: head order
    // What heads do (with --model): --metric, --position, --logit-lens, --top-k, --attribution.
    HeadsOptions heads;
    // Generation (with --model): --generate N, --temperature, --sample-seed, --sample-top-k, --sample-top-p.
    GenerationOptions generation;

    // --save-session FILE: the options of the session table given (on the command line or by
    // --session), written there once the run succeeds.
    QString save_session_path;
    Session session_to_save;
    // Head ablation (with --model): --ablate, --ablation, --ablation-scan.
    InterventionOptions interventions;
    // Activation patching (with --model and --metric): --patch-from, --patch-from-ids, --patch-site.
    PatchingOptions patching;

    QString json_path;       // --json FILE or "-" for standard output
    QString export_path;     // --export FILE.png|svg|pdf
    View view = View::Grid;  // what --export draws: any view but the walkthrough
    // --view model-shapes (an addition, with --model): the Shapes view of the whole model's chain of
    // blocks instead of the selected layer's attention.
    bool model_chain = false;
    int head = 0;
    int compare_a = 0;
    int compare_b = 1;
    bool compare_given = false;
    QSize size{1200, 900};
    bool size_given = false;
    int batch = 1;
    bool batch_given = false;
    // How --export draws heatmaps: the colour scale, key positions hidden (rows renormalised),
    // exBERT's top X % per row (1 = off), an extra head of the mean or max over heads (grid).
    ColorScale color_scale = ColorScale::WithoutOneKeyRows;
    bool color_scale_given = false;
    QList<int> hidden_tokens;
    double top_mass = 1.0;
    HeadAggregate aggregate = HeadAggregate::None;
    // --reduce max|mean (an addition): what a reduced pixel of a long input's heatmap shows.
    CellReduction reduction = CellReduction::Max;
    bool reduction_given = false;
    // --json-trace: --json also holds what reproduces the result (X, Q, K, V, raw scores).
    bool json_trace = false;
    // --memory-budget SIZE (an addition): what a request may take before it is refused; 0 = the
    // default, MemoryPlan::defaultBudget().
    std::int64_t memory_budget = 0;

    // Window (additions to the contract): the tab shown, and --screenshot FILE.png, which opens
    // the window, waits for the first result to be drawn, saves the whole window and exits.
    std::optional<View> tab;  // not given: the tab of --view
    QString screenshot_path;
    QString example;  // --example toy: the Examples menu's entry instead of the sentence

    bool show_help = false;
    bool show_version = false;

    bool isCross() const { return !kv_sentence.isEmpty() || !kv_input_path.isEmpty(); }
    bool headless() const { return !json_path.isEmpty() || !export_path.isEmpty() || !save_session_path.isEmpty(); }
};

class CommandLine {
public:
    // arguments[0] is the program name, as in QCoreApplication::arguments().
    static Result<CommandLineOptions> parse(const QStringList& arguments);
    static QString helpText();

    // The option that sets a field: "--heads" for SettingField::Heads. Messages of the settings
    // say what is wrong with a value; the command line says which option gave it.
    static QString optionFor(SettingField field);
};

}  // namespace attn
