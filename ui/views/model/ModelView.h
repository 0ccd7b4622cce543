#pragma once

#include "core/analysis/HeadMetrics.h"
#include "core/analysis/HeadScores.h"
#include "core/model/ModelRun.h"
#include "ui/heatmap/ColorMaps.h"
#include "ui/heatmap/HeadAggregate.h"
#include "ui/views/ViewPage.h"
#include "ui/workers/LatestJob.h"
#include "ui/workers/ViewWorkers.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QSplitter;
class QStackedWidget;
class QTableWidget;

namespace attn {

class ModelGridCanvas;

// The Model tab: every layer x head of a whole model's run as one grid of thumbnails on one
// colour scale (ModelGridCanvas), and under it the head metrics of the selected layer (the
// layer of the head last clicked or focused). A click or Enter on a thumbnail, or a double
// click on a row of the table, emits headActivated. Without a model it says how to open one.
// Every head's scores and metrics (for the table, "Sort by" and "Frame by") are computed on a
// thread of the view's own for each run: they read every cell of every map (2.6 s at 144 heads
// x 1,024 tokens), and the grid is drawn without them meanwhile.
class ModelView : public QWidget, public ViewPage {
    Q_OBJECT
public:
    explicit ModelView(QWidget* parent = nullptr);
    ~ModelView() override;

    // ViewPage: the tab as the window and Export image see it.
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;
    QString exportName() const override;

    void setModelRun(std::shared_ptr<const attn::ModelRun> run, const QStringList& tokens) override;
    void clearModel();
    void setColorMap(ColorMaps::Map map);

    bool hasModel() const;
    int selectedLayer() const { return m_layer; }
    void selectLayer(int layer);  // the layer whose metrics the table shows
    ModelGridCanvas* canvas() const { return m_canvas; }
    QTableWidget* metricsTable() const { return m_table; }
    QComboBox* reductionBox() const { return m_reduction; }
    // Whether the table lists the selected layer's heads or every layer's (to sort all L x H heads
    // by a score: the model's top induction heads, say).
    QComboBox* tableScopeBox() const { return m_scope; }
    // Frames every head by a score (none, previous, duplicate, induction, first).
    QComboBox* marksBox() const { return m_marks; }
    // Draws each layer's heads in head order or sorted by a score, highest first.
    QComboBox* orderBox() const { return m_order; }
    // An extra column (each layer's heads fused), row (each head across the layers) and corner (all):
    // 0 none, 1 mean, 2 max, as the heads grid's extra head.
    void setAggregate(HeadAggregate aggregate);
    // Keys hidden in every thumbnail, rows renormalised (View › Heatmaps › Hide tokens).
    void setHiddenKeys(const QList<int>& positions);
    QLabel* emptyLabel() const { return m_empty; }
    // Whether the scores and metrics of the run shown have arrived (the table, sorting and
    // frames then show them).
    bool headTablesReady() const { return m_tables != nullptr; }
    // Computes them on this thread if they have not arrived: an exported picture shows the
    // chosen order and frames, never a grid still waiting for them.
    void computeNow() override;

    QLabel* hintLabel() const { return m_hint; }
    // The metrics table's height: a layer's heads up to this many rows, never fewer than the minimum.
    static constexpr int kTableRows = 8;
    static constexpr int kTableMinimumRows = 2;

signals:
    void headActivated(int layer, int head);
    void headMenuRequested(int layer, int head, QPoint global_pos);  // the grid's right click on a head
    void headTablesComputed();

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    // Every head's scores and metrics for one run, layer after layer: index layer x heads + head.
    struct HeadTables {
        std::vector<HeadScore> scores;
        std::vector<HeadMetric> metrics;
    };
    static std::shared_ptr<const HeadTables> computeTables(const ModelRun& run);
    void setTables(std::shared_ptr<const HeadTables> tables);
    void showLayerMetrics();
    void updateMarks();
    void fitHint();
    void sizeSplit();
    int tableHeightFor(int rows) const;  // the table's header and `rows` rows

    QStackedWidget* m_stack = nullptr;
    QLabel* m_empty = nullptr;
    ModelGridCanvas* m_canvas = nullptr;
    QComboBox* m_reduction = nullptr;
    QComboBox* m_scale = nullptr;
    QLabel* m_table_title = nullptr;
    QComboBox* m_scope = nullptr;
    QComboBox* m_marks = nullptr;
    QComboBox* m_order = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_hint = nullptr;
    QSplitter* m_split = nullptr;  // the grid above the table
    bool m_split_sized = false;    // the user moved the split: it stays where they put it
    QStringList m_tokens;
    int m_layer = 0;
    std::shared_ptr<const HeadTables> m_tables;  // of the run shown; null until they arrive
    OwnWorkers m_workers;                        // a newer run waits for the one running
    LatestJob m_tables_job{this, m_workers};     // the tables of the newest run
};

}  // namespace attn
