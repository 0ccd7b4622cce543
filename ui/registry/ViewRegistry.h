#pragma once

#include "ui/views/HeadlessPicture.h"
#include "ui/views/View.h"

#include <QKeyCombination>
#include <QString>
#include <QStringList>

#include <optional>
#include <span>

class QWidget;

namespace attn {

class ViewPage;

// What a view draws: one attention layer's result (the single-layer views, and the selected
// layer of a model), or a whole model's run.
enum class ViewSource { Result, ModelRun };

// One view: everything the window, the exporter and the command line know of it.
struct ViewRow {
    View id;
    const char* key;      // --view, --tab and the saved settings (the command-line contract's spelling)
    const char* title;    // the tab's
    const char* tab_tip;  // the tab's tooltip; its shortcut follows in parentheses
    const char* action;   // the View menu's entry
    const char* action_tip;
    QKeyCombination shortcut;  // of the View menu's entry
    ViewSource source;
    // Brought up to date again when the keys hidden in the heatmaps change.
    bool follows_hidden_keys;
    ViewPage* (*create)(QWidget* parent);  // the tab
    // --export's picture of the view (the one path of the command line and of these tests);
    // nullptr: --view refuses the view.
    PictureMaker picture = nullptr;
    // Why the picture needs --model ("it draws ..."); nullptr: it draws one result.
    const char* needs_model = nullptr;
    // --view <model_key> with --model: model_picture draws the view of the whole model instead of
    // the selected layer's; model_key_needs says why it needs --model.
    const char* model_key = nullptr;
    PictureMaker model_picture = nullptr;
    const char* model_key_needs = nullptr;
    // What --export's picture holds beside the result, for the memory plan (MemoryRequest):
    // heatmaps of (T_q, T_kv), per head and in all, and further (T_q, T_kv) matrices.
    int heatmaps_per_head = 0;
    int heatmaps = 0;
    int extra_matrices = 0;
};

// The table of every view, in the order of View (the tabs' order). Adding a view: its folder
// under ui/views/, a value of View, one row here and one add_subdirectory line.
class ViewRegistry {
public:
    static std::span<const ViewRow> rows();
    static const ViewRow& row(View view);

    // --view's names, as --help lists them: every view drawn headless, with the model variants.
    static QStringList exportKeys();
    // The view whose model_key this is (--view model-shapes), or nullopt.
    static std::optional<View> fromModelKey(const QString& key);

    // The row's texts, translated.
    static QString title(const ViewRow& row);
    static QString tabTip(const ViewRow& row);  // with the shortcut: "... (Ctrl+1)"
    static QString actionText(const ViewRow& row);
    static QString actionTip(const ViewRow& row);
};

// "grid", "head", ...: the row's key.
QString viewKey(View view);
std::optional<View> viewFromKey(const QString& key);  // trimmed, case-insensitive; nullopt when unknown
// "a, b or c": names for a message.
QString joinedAlternatives(const QStringList& names);

}  // namespace attn
