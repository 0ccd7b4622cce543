#include "ui/registry/ViewRegistry.h"

#include "ui/views/ablation/AblationPicture.h"
#include "ui/views/ablation/AblationView.h"
#include "ui/views/attribution/AttributionPicture.h"
#include "ui/views/attribution/AttributionView.h"
#include "ui/views/compare/ComparePicture.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/generate/GenerateView.h"
#include "ui/views/heads/HeadPictures.h"
#include "ui/views/heads/HeadView.h"
#include "ui/views/heads/HeadsGrid.h"
#include "ui/views/lens/LensPicture.h"
#include "ui/views/lens/LensView.h"
#include "ui/views/lines/LinesPicture.h"
#include "ui/views/lines/LinesView.h"
#include "ui/views/model/ModelGridPicture.h"
#include "ui/views/model/ModelView.h"
#include "ui/views/qk/QueryKeyPicture.h"
#include "ui/views/qk/QueryKeyView.h"
#include "ui/views/rollout/RolloutPicture.h"
#include "ui/views/rollout/RolloutView.h"
#include "ui/views/shapes/ShapesPanel.h"
#include "ui/views/shapes/ShapesPicture.h"
#include "ui/views/walkthrough/WalkthroughView.h"

#include <QCoreApplication>
#include <QKeySequence>

#include <array>

namespace attn {
namespace {

template <class Page>
ViewPage* createPage(QWidget* parent)
{
    return new Page(parent);
}

// clang-format off
const std::array<ViewRow, 13> kRows = {{
    {.id = View::Grid, .key = "grid",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "All heads"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Every head as a small heatmap; click one to open it"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "All &heads"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show every head as a small heatmap"),
     .shortcut = Qt::CTRL | Qt::Key_1, .source = ViewSource::Result, .follows_hidden_keys = true,
     .create = createPage<HeadsGrid>, .picture = HeadPictures::grid,
     .heatmaps_per_head = 1},
    {.id = View::Head, .key = "head",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "One head"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry",
                                  "One head large; click a cell to follow that query in the walkthrough"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&One head"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show one head large"),
     .shortcut = Qt::CTRL | Qt::Key_2, .source = ViewSource::Result, .follows_hidden_keys = true,
     .create = createPage<HeadView>, .picture = HeadPictures::head,
     .heatmaps = 1},
    {.id = View::Compare, .key = "compare",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Compare"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry",
                                  "Two heads side by side with their difference, head metrics and similarity"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&Compare heads"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show two heads side by side with their difference, the head "
                                                     "metrics and their similarity"),
     .shortcut = Qt::CTRL | Qt::Key_3, .source = ViewSource::Result, .follows_hidden_keys = true,
     .create = createPage<CompareView>, .picture = ComparePicture::fromRequest,
     .heatmaps = 3, .extra_matrices = 3},  // A, B and A - B, each also held as a matrix by the comparison
    {.id = View::Lines, .key = "lines",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Lines"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Each query joined to the keys it attends to"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&Lines"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show each query joined to the keys it attends to"),
     .shortcut = Qt::CTRL | Qt::Key_4, .source = ViewSource::Result, .follows_hidden_keys = true,
     .create = createPage<LinesView>, .picture = LinesPicture::fromRequest},
    {.id = View::Shapes, .key = "shapes",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Shapes"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "The tensor shapes of every step, with batch size"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&Shapes"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show the tensor shapes of every step"),
     .shortcut = Qt::CTRL | Qt::Key_5, .source = ViewSource::Result, .follows_hidden_keys = false,
     .create = createPage<ShapesPanel>, .picture = ShapesPicture::ofResult,
     .model_key = "model-shapes", .model_picture = ShapesPicture::ofModel,
     .model_key_needs = "it draws the blocks of a whole model"},
    {.id = View::Walkthrough, .key = "walkthrough",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Walkthrough"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "The numbers of every step for one head and one query token"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&Walkthrough"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show the numbers of every step for one head and one query token"),
     .shortcut = Qt::CTRL | Qt::Key_6, .source = ViewSource::Result, .follows_hidden_keys = true,
     .create = createPage<WalkthroughView>},
    {.id = View::Model, .key = "model",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Model"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry",
                                  "Every layer and head of a whole model as one grid; click a head to open it"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&Model: every layer"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show every layer and head of a whole model as one grid"),
     .shortcut = Qt::CTRL | Qt::Key_7, .source = ViewSource::ModelRun, .follows_hidden_keys = false,
     .create = createPage<ModelView>, .picture = ModelGridPicture::fromRequest,
     .needs_model = "it draws every layer and head of a whole model"},
    {.id = View::Rollout, .key = "rollout",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Rollout"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Attention rollout: where what each token holds came from, "
                                                  "across a whole model's layers"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&Rollout: across layers"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry",
                                     "Show where each token's information came from across a whole model's layers"),
     .shortcut = Qt::CTRL | Qt::Key_8, .source = ViewSource::ModelRun, .follows_hidden_keys = false,
     .create = createPage<RolloutView>, .picture = RolloutPicture::fromRequest,
     .needs_model = "it rolls attention out across a model's layers"},
    {.id = View::QueryKey, .key = "qk",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Q–K space"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "The selected head's queries and keys in one scatter: a query "
                                                  "near a key attends to it"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&Query-key space"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show the selected head's queries and keys in one scatter"),
     .shortcut = Qt::CTRL | Qt::Key_9, .source = ViewSource::Result, .follows_hidden_keys = true,
     .create = createPage<QueryKeyView>, .picture = QueryKeyPicture::fromRequest},
    {.id = View::Lens, .key = "lens",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Lens"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "The logit lens: what the model would predict from each layer's "
                                                  "residual stream, at every position"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "Logit &lens"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show the prediction read from every layer at every position"),
     .shortcut = Qt::CTRL | Qt::SHIFT | Qt::Key_L, .source = ViewSource::ModelRun, .follows_hidden_keys = false,
     .create = createPage<LensView>, .picture = LensPicture::fromRequest,
     .needs_model = "it reads every layer through the model's prediction head"},
    {.id = View::Attribution, .key = "attribution",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Attribution"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Direct logit attribution: what each head, MLP and bias adds "
                                                  "to a model's logit (difference) at one position"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&Attribution: heads to logit"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show what each head, MLP and bias adds to a predicted token's logit"),
     .shortcut = Qt::CTRL | Qt::ALT | Qt::Key_A, .source = ViewSource::ModelRun, .follows_hidden_keys = false,
     .create = createPage<AttributionView>, .picture = AttributionPicture::fromRequest,
     .needs_model = "it splits a model's logit into its heads' parts"},
    {.id = View::Ablation, .key = "ablation",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Ablation"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "The ablation scan: how far a metric of the prediction moves "
                                                  "when each head alone is switched off"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "A&blation scan"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Show how each head's ablation moves a predicted token's logit"),
     .shortcut = Qt::CTRL | Qt::ALT | Qt::Key_B, .source = ViewSource::ModelRun, .follows_hidden_keys = false,
     .create = createPage<AblationView>, .picture = AblationPicture::fromRequest,
     .needs_model = "it ablates a model's heads one at a time"},
    {.id = View::Generate, .key = "generate",
     .title = QT_TRANSLATE_NOOP("ViewRegistry", "Generate"),
     .tab_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Generation: tokens added after the input, the top 5 at each step, "
                                                  "a step slider for every view's attention, and branches"),
     .action = QT_TRANSLATE_NOOP("ViewRegistry", "&Generate tokens"),
     .action_tip = QT_TRANSLATE_NOOP("ViewRegistry", "Generate tokens after the input and replay attention step by step"),
     .shortcut = Qt::CTRL | Qt::ALT | Qt::Key_G, .source = ViewSource::ModelRun, .follows_hidden_keys = false,
     .create = createPage<GenerateView>, .picture = nullptr,  // the window only: --generate writes the sequence
     .needs_model = "it generates with a model's prediction head"},
}};
// clang-format on

bool rowsFollowTheEnum()
{
    for (size_t i = 0; i < kRows.size(); ++i)
        if (kRows[i].id != View(i))
            return false;
    return true;
}

QString translated(const char* text)
{
    return QCoreApplication::translate("ViewRegistry", text);
}

}  // namespace

std::span<const ViewRow> ViewRegistry::rows()
{
    Q_ASSERT(rowsFollowTheEnum());
    return kRows;
}

const ViewRow& ViewRegistry::row(View view)
{
    Q_ASSERT(rowsFollowTheEnum());
    return kRows[size_t(view)];
}

QStringList ViewRegistry::exportKeys()
{
    QStringList keys;
    QStringList model_keys;  // listed after the first view of a whole model
    for (const ViewRow& row : kRows) {
        if (row.model_key)
            model_keys << QString::fromLatin1(row.model_key);
        if (!row.picture)
            continue;
        keys << QString::fromLatin1(row.key);
        if (row.needs_model) {
            keys << model_keys;
            model_keys.clear();
        }
    }
    return keys << model_keys;
}

std::optional<View> ViewRegistry::fromModelKey(const QString& key)
{
    for (const ViewRow& row : kRows)
        if (row.model_key && key == QLatin1String(row.model_key))
            return row.id;
    return std::nullopt;
}

QString ViewRegistry::title(const ViewRow& row)
{
    return translated(row.title);
}

QString ViewRegistry::tabTip(const ViewRow& row)
{
    return QStringLiteral("%1 (%2)").arg(translated(row.tab_tip),
                                         QKeySequence(row.shortcut).toString(QKeySequence::NativeText));
}

QString ViewRegistry::actionText(const ViewRow& row)
{
    return translated(row.action);
}

QString ViewRegistry::actionTip(const ViewRow& row)
{
    return translated(row.action_tip);
}

QString viewKey(View view)
{
    return QString::fromLatin1(ViewRegistry::row(view).key);
}

std::optional<View> viewFromKey(const QString& key)
{
    const QString wanted = key.trimmed().toLower();
    for (const ViewRow& row : ViewRegistry::rows())
        if (wanted == QLatin1String(row.key))
            return row.id;
    return std::nullopt;
}

QString joinedAlternatives(const QStringList& names)
{
    if (names.size() < 2)
        return names.join(QString());
    return names.mid(0, names.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") + names.last();
}

}  // namespace attn
