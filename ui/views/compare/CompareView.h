#pragma once

#include "core/pipeline/RunSettings.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeatmapReduction.h"
#include "ui/views/ViewPage.h"
#include "ui/workers/LatestJob.h"
#include "ui/workers/ViewWorkers.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QSplitter;
class QToolButton;

namespace attn {

class CompareFigure;
struct CompareSide;
struct HeadTables;
class HeadMetricsTable;
class HeadSimilarityView;
struct AttentionResult;

// Compare heads: head A and head B side by side on one colour scale with A - B on a diverging
// map, the sortable head metrics table and the head x head similarity map (both of the current
// result). Side B can be the current result or the same input under other settings (causal,
// seed, layer, weight file; with a whole model, another layer): the view asks for it (variantRequested) and whoever computes it
// (the window connects the AttentionController's worker) answers with showVariant or
// showVariantError. Until the answer comes the last comparison stays; a setting that fails
// shows its reason beside the controls and the last good B stays.
//
// Picking heads: the A and B choosers; a click in the metrics table or on a grid head
// (pickHead: the clicked head becomes A and the previous A becomes B; with other settings both
// sides take the clicked head); Shift+click in the table picks B; a click in the similarity
// map picks that pair.
class CompareView : public QWidget, public ViewPage {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    // ViewPage: the tab as the window and Export image see it.
    void showResult(const ViewInput& input) override;
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    int headA() const { return m_head_a; }
    int headB() const { return m_head_b; }
    bool usesOtherSettings() const;
    std::shared_ptr<const AttentionResult> resultB() const;  // what side B shows
    QString variantError() const;

    CompareFigure* figure() const { return m_figure; }
    HeadMetricsTable* metricsTable() const { return m_table; }
    HeadSimilarityView* similarityView() const { return m_similarity; }
    QComboBox* headChooserA() const { return m_choose_a; }
    QComboBox* headChooserB() const { return m_choose_b; }
    QCheckBox* otherSettingsBox() const { return m_other; }
    QCheckBox* causalBox() const { return m_b_causal; }
    QSpinBox* seedBox() const { return m_b_seed; }
    QSpinBox* layerBox() const { return m_b_layer; }
    QLineEdit* weightsFileEdit() const { return m_b_file; }

    // The comparison as shown, for export (same as CompareExport's picture).
    void renderFigure(QPainter* painter, const QRectF& target);

    // A long input's comparison (its heads recomputed) and the metrics and similarity of a large
    // result are computed on worker threads, the last picture staying meanwhile with a note that
    // says so; computeNow finishes what is still under way here (an export, a screenshot).
    bool isComputing() const { return m_comparison_pending || m_tables_pending || m_arrived; }
    void computeNow() override;
    QLabel* tablesNote() const { return m_tables_note; }
    QLabel* statusLabel() const { return m_status; }
    // In a short window the split starts with the tables folded away (the figure gets the height).
    static constexpr int kFoldTablesBelow = 360;
    bool tablesFolded() const;

public slots:
    // While the view is hidden the result is only kept, and shown when the view is.
    void setResult(std::shared_ptr<const attn::AttentionResult> result);
    void setSentence(const QString& sentence);  // side B under a new seed is embedded from it
    void setColorMap(attn::ColorMaps::Map map);
    void setColorScale(attn::ColorScale scale);  // of A and B (CompareFigure::setColorScale)
    void setReduction(attn::CellReduction how);  // of the three plots (CompareFigure::setReduction)
    void setHeads(int head_a, int head_b);
    void pickHead(int head);
    void setOtherSettings(bool enabled);
    // The answer to the newest variantRequested: side B, or why there is none.
    void showVariant(std::shared_ptr<const attn::AttentionResult> variant);
    void showVariantError(const QString& message);

signals:
    void headsChanged(int head_a, int head_b);
    // Side B under `config`: the input of `base` (the sentence embedded again under `config`,
    // or base's rows when the sentence is empty).
    void variantRequested(const attn::RunSettings& config, std::shared_ptr<const attn::AttentionResult> base,
                          const QString& sentence);

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void sizeSplit();

private:
    void buildControls();
    void syncVariantControls();  // from the current result's config
    // A layer of a whole model (its weights are a folder): B is another layer of the same run.
    static bool isModelLayer(const AttentionResult& result);
    RunSettings variantConfig() const;
    void requestVariant();
    void adoptResult(std::shared_ptr<const AttentionResult> result);
    void refresh();
    void refillChoosers();
    void startComparison(const CompareSide& a, const CompareSide& b);
    void startTables();
    void showTables(const HeadTables& tables);

    CompareFigure* m_figure = nullptr;
    HeadMetricsTable* m_table = nullptr;
    HeadSimilarityView* m_similarity = nullptr;
    QSplitter* m_split = nullptr;  // the figure above the tables
    bool m_split_sized = false;    // the split's first sizes were set from the view's height
    QComboBox* m_choose_a = nullptr;
    QComboBox* m_choose_b = nullptr;
    QToolButton* m_swap = nullptr;
    QCheckBox* m_other = nullptr;
    QCheckBox* m_b_causal = nullptr;
    QSpinBox* m_b_seed = nullptr;
    QSpinBox* m_b_layer = nullptr;
    QLineEdit* m_b_file = nullptr;
    QToolButton* m_b_browse = nullptr;
    QLabel* m_b_error = nullptr;
    QLabel* m_status = nullptr;

    std::shared_ptr<const AttentionResult> m_result;
    std::shared_ptr<const AttentionResult> m_pending;  // arrived while hidden
    std::shared_ptr<const AttentionResult> m_variant;  // the last good result under other settings
    bool m_awaiting_variant = false;                   // B for the current result is asked for and not there yet
    QString m_sentence;
    int m_head_a = 0;
    int m_head_b = 1;

    QLabel* m_tables_note = nullptr;  // computing, or over which queries the similarity is a mean
    OwnWorkers m_workers{2};          // the comparison and the tables, side by side
    LatestJob m_comparison_job{this, m_workers};
    LatestJob m_tables_job{this, m_workers};
    bool m_comparison_pending = false;
    bool m_tables_pending = false;
    bool m_compute_now = false;  // computeNow: the comparison here, not on a worker
    // A worker's comparison that arrived while the view was hidden: shown when it is.
    struct ArrivedComparison;
    std::shared_ptr<ArrivedComparison> m_arrived;
    void showArrived();
};

}  // namespace attn
