#pragma once

#include "core/base/Result.h"
#include "core/pipeline/RunSettings.h"

#include <QObject>
#include <QString>

class QMenu;

namespace attn {

class AppSettings;
class MainWindow;
class RecentItems;

// Whole models and examples in the window: opening a model folder (the dialog, File › Recent
// models, a dropped folder, the one remembered from the last session), closing it, its layers,
// its tokens on the strip, the sentence field's Token ids mode, Model › Induction probe, and the
// Examples menu. The window holds the widgets; this object decides what to do with them.
//
// A folder is read on the controller's worker: until it is read the window says it is opening it
// and the model's controls wait; refused, its reason is in the message bar and the settings
// panel, and the model or the weights in use stay.
class ModelActions : public QObject {
    Q_OBJECT
public:
    ModelActions(MainWindow& window, AppSettings* settings, QMenu* recent_models_menu, QMenu* examples_menu);

    void openModelFolder(const QString& dir, int layer = 0);
    void openModelInteractively();
    void closeModel();
    // The model open when the window closed, read again, with the field's mode and ids of then.
    void restore(const QString& dir, int layer, bool token_ids_input, const QString& token_ids);
    QMenu* recentModelsMenu() const;
    // Into the settings: the sentence and ids, the model open or being opened, and the settings
    // (what an example replaced, not the example).
    void save() const;

    // With a whole model: Text or Token ids in the sentence field. Each mode keeps its own text; a
    // folder without a tokenizer switches to Token ids when it opens.
    void setTokenIdsInput(bool token_ids);
    void setTokenIds(const QString& ids);  // Token ids mode, with these ids in the field ("1,2,3")
    QString textSentence() const;          // the field's text in Text mode, or the text kept meanwhile
    QString tokenIdsText() const;          // and the ids

    void runInductionProbe();
    static constexpr int kInductionProbeLength = 40;
    void showModelHead(int layer, int head);  // layer `layer`, head `head` in the One head tab
    // The controller's refusal of a folder, said in the message bar.
    void showModelError(const QString& message);
    void updateModelPieces();  // the token strip from the model's run and predictions

    // Examples › Toy: asks first when it would close a model; showToyExample does not ask.
    void showToyExampleInteractively();
    Status showToyExample();
    // What an example replaced: restored when it is left, remembered instead of it.
    const RunSettings& configBeforeExample() const { return m_config_before_example; }
    const QString& sentenceBeforeExample() const { return m_sentence_before_example; }
    // Typing leaves the example: `text` with the settings in use before it.
    void leaveExampleForSentence(const QString& text);

private:
    void modelOpened(const QString& dir);
    void modelClosed();
    void showOpening(const QString& dir);
    void setKvSentenceAvailable(bool available);  // a model has no second sentence
    void stepLayer(int step);
    // What Token ids mode starts with when its field is empty: the ids of the model's last run
    // (the sentence's), or the first few ids of the vocabulary; never an empty, refused field.
    QString startingTokenIds() const;
    static constexpr int kStartingIdCount = 8;
    void exampleActiveChanged(bool active);

    MainWindow& m_window;
    AppSettings* m_settings;
    RecentItems* m_recent;
    QString m_other_mode_text;  // what the field held in the mode not shown
    bool m_restoring = false;   // the remembered model folder is being read at start-up
    RunSettings m_config_before_example;
    QString m_sentence_before_example;
};

}  // namespace attn
