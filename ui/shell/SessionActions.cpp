#include "ui/shell/SessionActions.h"

#include "core/model/ModelSession.h"
#include "core/model/TokenIdList.h"
#include "ui/controller/AttentionController.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeadAggregate.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/registry/ViewRegistry.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/AttentionKindSwitch.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/RecentItems.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/attribution/AttributionView.h"
#include "ui/views/heads/HeadView.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QSpinBox>

namespace attn {
namespace {

QList<int> integersOf(const QString& text)
{
    QList<int> values;
    for (const QString& part : text.split(u',', Qt::SkipEmptyParts))
        values << part.trimmed().toInt();
    return values;
}

QString joined(const QList<int>& values)
{
    QStringList parts;
    for (int value : values)
        parts << QString::number(value);
    return parts.join(u',');
}

// What the window needs of a session beyond the file's own checks, worked out before anything
// changes: a refusal names the key.
struct WindowState {
    RunSettings config;
    View view = View::Grid;
    ColorScale color_scale = ColorScale::WithoutOneKeyRows;
    CellReduction reduction = CellReduction::Max;
    HeadAggregate aggregate = HeadAggregate::None;
};

Result<WindowState> windowState(const Session& session, const RunSettings& in_use)
{
    WindowState state;
    for (const char* matrix : {"input", "kv_input", "tokens"})
        if (session.has(QString::fromLatin1(matrix)))
            return Error{QStringLiteral("\"%1\": the window shows sentences, not matrices of token vectors")
                             .arg(QLatin1String(matrix))};
    const bool model = session.has(u"model");
    for (const char* model_only : {"token_ids", "metric", "position"})
        if (!model && session.has(QString::fromLatin1(model_only)))
            return Error{QStringLiteral("\"%1\": only with a model").arg(QLatin1String(model_only))};
    RunSettings& config = state.config;
    config = model ? in_use : RunSettings{};
    if (!model) {
        const auto integer = [&session](const char* key, int fallback) {
            return session.has(QString::fromLatin1(key)) ? session.text(QString::fromLatin1(key)).toInt() : fallback;
        };
        config.d_model = integer("d_model", config.d_model);
        config.num_heads = integer("heads", config.num_heads);
        config.input_dim = integer("input_dim", 0);
        config.seed = session.has(u"seed") ? session.text(u"seed").toULongLong() : 0;
        config.layer = integer("layer", 0);
        if (session.has(u"weights")) {
            config.weight_source = RunSettings::WeightSource::File;
            config.weights_file = session.text(u"weights");
            config.file_num_heads = integer("heads", 0);
        } else if (session.has(u"identity")) {
            config.weight_source = RunSettings::WeightSource::Identity;
        }
        config.causal = session.has(u"causal");
        config.positional_encoding = !session.has(u"no_positional");
        config.padded_keys = integersOf(session.text(u"pad_keys"));
        if (session.has(u"scale")) {
            auto scale = ScaleSetting::parse(session.text(u"scale"));
            if (!scale)
                return Error{QStringLiteral("\"scale\": %1").arg(scale.error())};
            config.scale = *scale;
        }
        if (std::optional<SettingError> invalid = config.validate())
            return Error{invalid->message};
    }
    if (session.has(u"view")) {
        const QString key = session.text(u"view");
        const std::optional<View> view =
            ViewRegistry::fromModelKey(key) ? ViewRegistry::fromModelKey(key) : viewFromKey(key);
        if (!view)
            return Error{QStringLiteral("\"view\": no tab is called '%1'").arg(key)};
        state.view = *view;
    }
    if (session.has(u"color_scale"))
        state.color_scale = ColorScales::fromCommandLine(session.text(u"color_scale")).value();
    if (session.has(u"reduce"))
        state.reduction = cellReductionFromKey(session.text(u"reduce")).value();
    if (session.has(u"aggregate_heads"))
        state.aggregate = session.text(u"aggregate_heads") == u"mean" ? HeadAggregate::Mean : HeadAggregate::Max;
    return state;
}

}  // namespace

SessionActions::SessionActions(MainWindow& window, AppSettings* settings, QMenu* recent_menu)
    : QObject(&window),
      m_window(window),
      m_recent(new RecentItems(settings, AppSettings::RecentList::Sessions, recent_menu))
{
    connect(m_recent, &RecentItems::chosen, this, [this](const QString& path) { openSession(path); });
    ActionRegistry* actions = window.actions();
    connect(actions->get(ActionId::SaveSession), &QAction::triggered, this, &SessionActions::saveInteractively);
    connect(actions->get(ActionId::OpenSession), &QAction::triggered, this, &SessionActions::openInteractively);
}

bool SessionActions::isSessionFile(const QString& path)
{
    if (QFileInfo(path).suffix().compare(u"json", Qt::CaseInsensitive) != 0)
        return false;
    QFile file(path);
    return file.open(QIODevice::ReadOnly) && file.read(64 * 1024).contains(Session::kFormat);
}

Session SessionActions::current() const
{
    Session session;
    const auto set = [&session](const char* key, const QString& value) {
        session.set(QString::fromLatin1(key), value);  // the window's values are valid ones
    };
    AttentionController* controller = m_window.controller();
    const ModelActions* model_actions = m_window.modelActions();
    const bool example = controller->showsExample();
    const RunSettings& config = example ? model_actions->configBeforeExample() : controller->config();
    const bool model = controller->hasModel() || controller->isOpeningModel();
    if (model) {
        set("model", controller->isOpeningModel() ? controller->openingModelDir() : controller->model()->dir());
        set("layer", QString::number(controller->selectedLayer()));
        if (controller->tokenIdsInput())
            set("token_ids", model_actions->tokenIdsText());
        else
            set("sentence", model_actions->textSentence());
        AttributionView* attribution = m_window.viewTabs()->attributionView();
        const QString target = attribution->targetBox()->currentText().trimmed();
        const QString foil = attribution->foilBox()->currentText().trimmed();
        if (!target.isEmpty()) {
            set("metric", foil.isEmpty() ? target : target + u',' + foil);
            set("position", QString::number(attribution->positionBox()->value()));
        }
    } else {
        switch (config.weight_source) {
            case RunSettings::WeightSource::File:
                set("weights", config.weights_file);
                if (config.file_num_heads > 0)
                    set("heads", QString::number(config.file_num_heads));
                if (config.layer > 0)
                    set("layer", QString::number(config.layer));
                break;
            case RunSettings::WeightSource::Identity:
                set("identity", QStringLiteral("true"));
                break;
            case RunSettings::WeightSource::Random:
                set("d_model", QString::number(config.d_model));
                set("heads", QString::number(config.num_heads));
                if (config.input_dim > 0)
                    set("input_dim", QString::number(config.input_dim));
                set("seed", QString::number(config.seed));
                break;
        }
        if (config.causal)
            set("causal", QStringLiteral("true"));
        if (config.scale.mode != ScaleSetting::Mode::Sqrt)
            set("scale", config.scale.toString());
        if (!config.positional_encoding)
            set("no_positional", QStringLiteral("true"));
        set("sentence", example ? model_actions->sentenceBeforeExample() : m_window.sentenceEdit()->text());
        if (!m_window.kvSentenceEdit()->text().trimmed().isEmpty())
            set("kv_sentence", m_window.kvSentenceEdit()->text());
        if (!config.padded_keys.isEmpty())
            set("pad_keys", joined(config.padded_keys));
    }
    set("head", QString::number(m_window.headView()->head()));
    const ViewRow& row = ViewRegistry::row(m_window.currentView());
    if (row.picture)  // the Walkthrough tab has no picture for --view
        set("view", QString::fromLatin1(row.key));
    HeatmapMenu* heatmaps = m_window.heatmapMenu();
    if (heatmaps->colorScale() != ColorScale::WithoutOneKeyRows)
        set("color_scale", ColorScales::key(heatmaps->colorScale()));
    if (!heatmaps->hiddenKeys().isEmpty())
        set("hide_tokens", joined(heatmaps->hiddenKeys()));
    if (heatmaps->topMass() < 1.0)
        set("top_mass", QString::number(heatmaps->topMass() * 100.0, 'g', 17));
    if (heatmaps->aggregate() != HeadAggregate::None)
        set("aggregate_heads",
            heatmaps->aggregate() == HeadAggregate::Mean ? QStringLiteral("mean") : QStringLiteral("max"));
    if (heatmaps->reduction() != CellReduction::Max)
        set("reduce", cellReductionKey(heatmaps->reduction()));
    if (m_window.attentionKind()->norms())
        set("attention_kind", QStringLiteral("norms"));
    return session;
}

Status SessionActions::saveSession(const QString& path)
{
    if (Status s = current().write(path); !s) {
        m_window.messageBar()->showError(tr("Session not saved: %1").arg(s.error()));
        return s;
    }
    m_recent->add(QFileInfo(path).absoluteFilePath());
    m_window.messageBar()->showInfo(tr("Session saved as %1").arg(QFileInfo(path).fileName()));
    return {};
}

Status SessionActions::openSession(const QString& path)
{
    auto session = Session::read(path);
    Status applied = session ? apply(*session) : Status(Error{session.error()});
    if (!applied) {
        m_window.messageBar()->showError(tr("Session %1: %2").arg(QFileInfo(path).fileName(), applied.error()));
        return applied;
    }
    m_recent->add(QFileInfo(path).absoluteFilePath());
    return {};
}

Status SessionActions::apply(const Session& session)
{
    auto state = windowState(session, m_window.controller()->config());
    if (!state)
        return Error{state.error()};
    disconnect(m_pending_head);
    m_window.kvSentenceEdit()->setText(session.text(u"kv_sentence"));
    const int head = session.has(u"head") ? session.text(u"head").toInt() : 0;
    const QString sentence = session.has(u"sentence") ? session.text(u"sentence") : RunSettings::defaultSentence();
    if (session.has(u"model")) {
        m_window.openModelFolder(session.text(u"model"), session.has(u"layer") ? session.text(u"layer").toInt() : 0);
        if (session.has(u"token_ids")) {
            m_window.setTokenIds(session.text(u"token_ids"));
        } else {
            m_window.setTokenIdsInput(false);
            m_window.sentenceEdit()->setText(sentence);
        }
        m_window.headView()->setHead(head);
        m_window.setCurrentView(state->view);
        const QString dir = QFileInfo(session.text(u"model")).absoluteFilePath();
        const View view = state->view;
        m_pending_head =
            connect(m_window.controller(), &AttentionController::resultReady, this, [this, dir, head, view] {
                const auto model = m_window.controller()->model();
                if (!model || QFileInfo(model->dir()).absoluteFilePath() != dir)
                    return;
                disconnect(m_pending_head);
                m_window.headView()->setHead(head);
                m_window.viewTabs()->selectHead(head);
                m_window.setCurrentView(view);
            });
        const QStringList metric = session.text(u"metric").split(u',');
        AttributionView* attribution = m_window.viewTabs()->attributionView();
        attribution->targetBox()->setCurrentText(metric.value(0));
        attribution->foilBox()->setCurrentText(metric.value(1));
        if (session.has(u"position"))
            attribution->positionBox()->setValue(session.text(u"position").toInt());
    } else {
        m_window.closeModel();
        m_window.applyOptions(state->config, sentence, state->view, head);
    }
    m_window.viewTabs()->selectHead(head);
    HeatmapMenu* heatmaps = m_window.heatmapMenu();
    heatmaps->setColorScale(state->color_scale);
    heatmaps->setReduction(state->reduction);
    heatmaps->setAggregate(state->aggregate);
    heatmaps->setTopMass(session.has(u"top_mass") ? session.text(u"top_mass").toDouble() / 100.0 : 1.0);
    heatmaps->setHiddenKeys(integersOf(session.text(u"hide_tokens")));
    m_window.attentionKind()->setNorms(session.text(u"attention_kind") == u"norms");
    return {};
}

void SessionActions::saveInteractively()
{
    const QString proposed = QDir(m_recent->dialogFolder()).filePath(QStringLiteral("session.json"));
    const QString path = QFileDialog::getSaveFileName(&m_window, tr("Save session"), proposed, tr("Sessions (*.json)"));
    if (!path.isEmpty())
        saveSession(path);
}

void SessionActions::openInteractively()
{
    const QString path = QFileDialog::getOpenFileName(&m_window, tr("Open session"), m_recent->dialogFolder(),
                                                      tr("Sessions (*.json);;All files (*)"));
    if (!path.isEmpty())
        openSession(path);
}

}  // namespace attn
