#include "app/WindowLauncher.h"

#include "app/CommandLine.h"
#include "app/ExportOptions.h"
#include "core/analysis/AttentionDisplay.h"
#include "core/model/ModelSession.h"
#include "core/model/TokenIdList.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/AttentionKindSwitch.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/rollout/RolloutView.h"
#include "ui/views/shapes/ShapesPanel.h"
#include "ui/workers/ViewWorkers.h"

#include <QCoreApplication>
#include <QImage>
#include <QLineEdit>
#include <QMap>
#include <QPixmap>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>
#include <QThreadPool>

namespace attn {
namespace {

// Lets queued work run: layouts, QCustomPlot's queued replots (zero-timers), deferred views.
void settle(int rounds)
{
    for (int i = 0; i < rounds; ++i) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
}

}  // namespace

View WindowLauncher::tabFor(const CommandLineOptions& options)
{
    return options.tab.value_or(options.view);
}

Status WindowLauncher::apply(MainWindow& window, const CommandLineOptions& options)
{
    if (options.memory_budget > 0)
        window.setMemoryBudget(options.memory_budget);
    window.kvSentenceEdit()->setText(options.kv_sentence);  // before the sentence: one result for both
    if (!options.model_dir.isEmpty()) {
        // The model's layer is its own; the settings keep theirs for when it is closed.
        RunSettings config = options.config;
        config.layer = 0;
        window.openModelFolder(options.model_dir, options.config.layer);
        window.applyOptions(config, options.sentence, tabFor(options), options.head);
        if (options.token_ids_given)
            window.setTokenIds(TokenIdList::format(options.token_ids));
    } else {
        // The command line's settings replace the remembered ones, a model reopened from them too.
        window.closeModel();
        window.applyOptions(options.config, options.sentence, tabFor(options), options.head);
    }
    if (options.example == u"toy")
        if (Status shown = window.showToyExample(); !shown)
            return Error{QStringLiteral("--example toy: %1").arg(shown.error())};
    ViewTabs* tabs = window.viewTabs();
    tabs->selectHead(options.head);
    if (options.batch_given)
        tabs->shapesPanel()->setBatch(options.batch);
    if (options.compare_given)
        tabs->compareView()->setHeads(options.compare_a, options.compare_b);
    // The heatmap options, as View › Heatmaps sets them (hidden tokens beyond the input wait for a
    // longer one there; --screenshot checks them against its result).
    HeatmapMenu* heatmaps = window.heatmapMenu();
    if (options.color_scale_given)
        heatmaps->setColorScale(options.color_scale);
    if (options.reduction_given)
        heatmaps->setReduction(options.reduction);
    heatmaps->setTopMass(options.top_mass);
    heatmaps->setAggregate(options.aggregate);
    heatmaps->setHiddenKeys(options.hidden_tokens);
    if (options.heads.attention_norms)  // --attention-kind norms: the switch on, as Ctrl+Shift+N
        window.attentionKind()->setNorms(true);
    return {};
}

int WindowLauncher::screenshot(const CommandLineOptions& options, QTextStream& err)
{
    auto fail = [&](const QString& message) {
        err << "error: " << message << '\n';
        err.flush();
        return 1;
    };
    QTemporaryDir settings_dir;
    if (!settings_dir.isValid())
        return fail(QStringLiteral("--screenshot: no temporary directory for the window's settings"));
    AppSettings settings(settings_dir.filePath(QStringLiteral("settings.ini")));
    MainWindow window(&settings);
    window.resize(options.size_given ? options.size : QSize(1400, 900));

    // Refused values, by the option that set them (SettingField::DModel -> --d-model); cleared ones drop out.
    QMap<SettingField, QString> errors;
    QObject::connect(window.controller(), &AttentionController::errorChanged, &window,
                     [&errors, &options](SettingField field, const QString& message) {
                         // With --token-ids the sentence field holds the ids.
                         const QString option = field == SettingField::Sentence && options.token_ids_given
                                                    ? QStringLiteral("--token-ids")
                                                    : CommandLine::optionFor(field);
                         if (message.isEmpty())
                             errors.remove(field);
                         else
                             errors.insert(field, QStringLiteral("%1: %2").arg(option, message));
                     });
    if (Status applied = apply(window, options); !applied)
        return fail(applied.error());
    window.show();
    window.controller()->waitForIdle();
    // The window cannot be smaller than its layout allows: a picture of another size than asked
    // would pass for the requested one, so a --size below the minimum is refused.
    const QSize requested = options.size_given ? options.size : QSize(1400, 900);
    if (window.size() != requested) {
        const QSize minimum = window.minimumSize().expandedTo(window.minimumSizeHint());
        return fail(QStringLiteral("--size %1x%2: the window cannot be drawn at this size (its smallest size is %3x%4)")
                        .arg(requested.width())
                        .arg(requested.height())
                        .arg(std::max(minimum.width(), window.width()))
                        .arg(std::max(minimum.height(), window.height())));
    }
    // Text needs the folder's tokenizer (the window has switched such a folder to token ids): the
    // line --json and --export give.
    if (const auto model = window.controller()->model(); !options.token_ids_given && model && !model->tokenizer())
        return fail(QStringLiteral("--model %1: %2").arg(options.model_dir, model->tokenizerProblem()));
    if (!errors.isEmpty())
        return fail(errors.first());
    const auto result = window.controller()->result();
    if (!result)
        return fail(QStringLiteral("--screenshot: nothing was computed"));
    if (Status heads = ExportOptions::checkHeads(options, result->numHeads()); !heads)
        return fail(heads.error());
    if (!options.hidden_tokens.isEmpty())
        if (auto hidden = AttentionDisplay::hiddenKeys(options.hidden_tokens, result->keyLen()); !hidden)
            return fail(QStringLiteral("--hide-tokens: %1").arg(hidden.error()));
    settle(10);  // layouts, then the plots' queued replots, then their paints
    window.controller()->waitForIdle();
    // Work the tabs hand to threads of their own, done here so that the picture shows its result.
    for (const ViewRow& row : ViewRegistry::rows())
        window.viewTabs()->page(row.id)->computeNow();
    // Heatmaps reduced (and a long input's heads recomputed) on the views' workers post their
    // pictures back when done: two rounds, for work started by what the first one delivered.
    for (int round = 0; round < 2; ++round) {
        viewWorkers().waitForDone();
        settle(5);
    }

    const QImage image = window.grab().toImage();
    if (image.isNull())
        return fail(QStringLiteral("--screenshot %1: the window could not be drawn").arg(options.screenshot_path));
    QSaveFile file(options.screenshot_path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit())
        return fail(
            QStringLiteral("--screenshot %1: cannot write: %2").arg(options.screenshot_path, file.errorString()));
    return 0;
}

}  // namespace attn
