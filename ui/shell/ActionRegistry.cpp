#include "ui/shell/ActionRegistry.h"

#include <QAction>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QKeySequence>
#include <QWidget>

namespace attn {
namespace {

struct ActionSpec {
    ActionId id;
    const char* text;
    QList<QKeySequence> shortcuts;
    const char* tip;
    bool checkable = false;
};

// The platform's standard shortcut, or a common one where the platform defines none
// (e.g. Quit on some Linux themes).
QList<QKeySequence> standard(QKeySequence::StandardKey key, const QKeySequence& fallback)
{
    const QList<QKeySequence> bindings = QKeySequence::keyBindings(key);
    return bindings.isEmpty() ? QList<QKeySequence>{fallback} : bindings;
}

}  // namespace

ActionRegistry::ActionRegistry(QWidget* owner) : QObject(owner), m_owner(owner)
{
    const QList<ActionSpec> table = {
        {ActionId::OpenWeights, QT_TR_NOOP("&Open weights…"),
         standard(QKeySequence::Open, QKeySequence(Qt::CTRL | Qt::Key_O)),
         QT_TR_NOOP("Load attention weights from a .safetensors, .npz or .json file")},
        {ActionId::OpenModel,
         QT_TR_NOOP("Open &model folder…"),
         {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)},
         QT_TR_NOOP("Open a whole model (GPT-2, BERT, DistilBERT, Llama, Qwen2, Mistral or GPT-NeoX) from a "
                    "Hugging Face folder (config.json, model.safetensors and the tokenizer)")},
        {ActionId::InductionProbe,
         QT_TR_NOOP("&Induction probe"),
         {},
         QT_TR_NOOP("Feed the model a random sequence of token ids given twice (TransformerLens's test): induction "
                    "heads attend from each repeated token to the one after its first occurrence; the Model tab "
                    "sorts and frames the heads by their induction score")},
        {ActionId::CloseModel,
         QT_TR_NOOP("C&lose model"),
         {},
         QT_TR_NOOP("Close the model and go back to the weights of the settings panel")},
        {ActionId::OpenSession,
         QT_TR_NOOP("Open &session…"),
         {},
         QT_TR_NOOP("Open a saved session: the model or weights, the input, the layer, head and tab, the "
                    "heatmap options, hidden tokens and metric")},
        {ActionId::SaveSession,
         QT_TR_NOOP("Sa&ve session…"),
         {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)},
         QT_TR_NOOP("Save what the window shows (model or weights, input, layer, head, tab, heatmap options, "
                    "hidden tokens, metric) as a session file, to open again here or with --session")},
        {ActionId::ExportImage,
         QT_TR_NOOP("&Export image…"),
         {QKeySequence(Qt::CTRL | Qt::Key_E)},
         QT_TR_NOOP("Save the current view as PNG, SVG or PDF")},
        {ActionId::CopyImage,
         QT_TR_NOOP("&Copy image"),
         {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C)},
         QT_TR_NOOP("Copy the current view to the clipboard as an image")},
        {ActionId::ExportData,
         QT_TR_NOOP("Export &attention weights…"),
         {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E)},
         QT_TR_NOOP("Save the attention weights of every head as CSV, NPY or JSON")},
        {ActionId::Quit, QT_TR_NOOP("&Quit"), standard(QKeySequence::Quit, QKeySequence(Qt::CTRL | Qt::Key_Q)),
         QT_TR_NOOP("Quit attention-lab")},
        {ActionId::NextHead,
         QT_TR_NOOP("&Next head"),
         {QKeySequence(Qt::Key_PageDown)},
         QT_TR_NOOP("Show the next head")},
        {ActionId::PreviousHead,
         QT_TR_NOOP("&Previous head"),
         {QKeySequence(Qt::Key_PageUp)},
         QT_TR_NOOP("Show the previous head")},
        {ActionId::NextLayer,
         QT_TR_NOOP("Ne&xt layer"),
         {QKeySequence(Qt::ALT | Qt::Key_PageDown)},
         QT_TR_NOOP("Show the next layer of the model")},
        {ActionId::PreviousLayer,
         QT_TR_NOOP("Previous la&yer"),
         {QKeySequence(Qt::ALT | Qt::Key_PageUp)},
         QT_TR_NOOP("Show the previous layer of the model")},
        {ActionId::ZoomIn, QT_TR_NOOP("Zoom &in"),
         standard(QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Plus))
             << QKeySequence(Qt::CTRL | Qt::Key_Equal),
         QT_TR_NOOP("One head: show half as many queries and keys, down to single cells with their tokens (or the "
                    "mouse wheel over the heatmap)")},
        {ActionId::ZoomOut, QT_TR_NOOP("Zoom &out"),
         standard(QKeySequence::ZoomOut, QKeySequence(Qt::CTRL | Qt::Key_Minus)),
         QT_TR_NOOP("One head: show twice as many queries and keys")},
        {ActionId::ZoomWhole,
         QT_TR_NOOP("&Whole matrix"),
         {QKeySequence(Qt::CTRL | Qt::Key_0)},
         QT_TR_NOOP("One head: show every query and key again (or double-click the heatmap)")},
        {ActionId::FocusSentence,
         QT_TR_NOOP("Edit &sentence"),
         {QKeySequence(Qt::CTRL | Qt::Key_L)},
         QT_TR_NOOP("Move the keyboard focus to the sentence")},
        {ActionId::Causal,
         QT_TR_NOOP("&Causal mask"),
         {QKeySequence(Qt::CTRL | Qt::Key_M)},
         QT_TR_NOOP("Decoder mask: query i sees keys 0..i only"),
         true},
        {ActionId::ValueNorms,
         QT_TR_NOOP("Draw value-weighted &norms ||A f(x)||"),
         {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N)},
         QT_TR_NOOP("Every heatmap view draws ||A_ij f(x_j)|| (attention times each key's value norm through the "
                    "output projection) instead of the weights; rows do not sum to 1"),
         true},
        {ActionId::UserGuide,
         QT_TR_NOOP("&User guide"),
         {},
         QT_TR_NOOP("Open the guide shipped with the program (docs/window.md, README.md and docs/ beside it)")},
        {ActionId::KeyboardShortcuts, QT_TR_NOOP("&Keyboard shortcuts"),
         standard(QKeySequence::HelpContents, QKeySequence(Qt::Key_F1)), QT_TR_NOOP("List every keyboard shortcut")},
        {ActionId::About,
         QT_TR_NOOP("&About attention-lab"),
         {},
         QT_TR_NOOP("Version, licences and where the documentation is")},
        {ActionId::AboutQt, QT_TR_NOOP("About &Qt"), {}, QT_TR_NOOP("The version and licence of Qt")},
    };
    const auto add = [this, owner](const QString& text, const QList<QKeySequence>& shortcuts, const QString& tip,
                                   bool checkable) {
        auto* action = new QAction(text, owner);
        action->setShortcuts(shortcuts);
        action->setCheckable(checkable);
        const QString shortcut =
            shortcuts.isEmpty() ? QString()
                                : QStringLiteral(" (%1)").arg(shortcuts.first().toString(QKeySequence::NativeText));
        action->setToolTip(tip + shortcut);
        action->setStatusTip(tip);
        if (!shortcuts.isEmpty())
            owner->addAction(action);
        m_order.append(action);
        return action;
    };
    for (const ActionSpec& spec : table) {
        m_actions.insert(spec.id, add(tr(spec.text), spec.shortcuts, tr(spec.tip), spec.checkable));
        if (spec.id == ActionId::Quit)
            for (const ViewRow& row : ViewRegistry::rows())
                m_view_actions.push_back(add(ViewRegistry::actionText(row), {QKeySequence(row.shortcut)},
                                             ViewRegistry::actionTip(row), false));
    }
    // Every widget's ShortcutOverride passes here first: the application's filter sees the event
    // before the focused widget (and its parents) can claim the key.
    QCoreApplication::instance()->installEventFilter(this);
}

bool ActionRegistry::isShortcut(const QKeyEvent& key) const
{
    const Qt::KeyboardModifiers modifiers = key.modifiers() & ~Qt::KeypadModifier;
    QList<QKeySequence> pressed{QKeySequence(QKeyCombination(modifiers, Qt::Key(key.key())))};
    // Ctrl++ is typed with Shift on most layouts; letters keep Shift (Ctrl+Shift+E is another shortcut).
    const bool letter = key.key() >= Qt::Key_A && key.key() <= Qt::Key_Z;
    if (!letter && modifiers.testFlag(Qt::ShiftModifier))
        pressed << QKeySequence(QKeyCombination(modifiers & ~Qt::ShiftModifier, Qt::Key(key.key())));
    for (const QAction* action : m_order) {
        if (!action->isEnabled())
            continue;
        for (const QKeySequence& shortcut : action->shortcuts())
            if (pressed.contains(shortcut))
                return true;
    }
    return false;
}

bool ActionRegistry::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::ShortcutOverride || !watched->isWidgetType())
        return false;
    if (static_cast<QWidget*>(watched)->window() != m_owner)
        return false;  // a dialog's field keeps its keys
    auto* key = static_cast<QKeyEvent*>(event);
    if (!isShortcut(*key))
        return false;
    key->ignore();  // not overridden: the shortcut map triggers the action
    return true;
}

QString ActionRegistry::shortcutsHtml() const
{
    QString rows;
    for (const QAction* action : m_order) {
        if (action->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence& shortcut : action->shortcuts())
            keys << shortcut.toString(QKeySequence::NativeText).toHtmlEscaped();
        rows +=
            QStringLiteral("<tr><td>%1</td><td style='padding-left: 16px'><b>%2</b></td></tr>")
                .arg(QString(action->text()).remove(QLatin1Char('&')).toHtmlEscaped(), keys.join(QStringLiteral(", ")));
    }
    return QStringLiteral("<table>%1</table>").arg(rows);
}

}  // namespace attn
