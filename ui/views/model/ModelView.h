#pragma once

#include "core/model/ModelRun.h"
#include "ui/heatmap/ColorMaps.h"

#include <QStringList>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QStackedWidget;
class QTableWidget;

namespace attn {

class ModelGridCanvas;

// The Model tab: every layer x head of a whole model's run as one grid of thumbnails on one
// colour scale (ModelGridCanvas), and under it the head metrics of the selected layer (the
// layer of the head last clicked or focused). A click or Enter on a thumbnail, or a double
// click on a row of the table, emits headActivated. Without a model it says how to open one.
class ModelView : public QWidget {
    Q_OBJECT
public:
    explicit ModelView(QWidget* parent = nullptr);

    void setModelRun(std::shared_ptr<const attn::ModelRun> run, const QStringList& tokens);
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
    void setAggregate(int aggregate);
    // Keys hidden in every thumbnail, rows renormalised (View › Heatmaps › Hide tokens).
    void setHiddenKeys(const QList<int>& positions);
    QLabel* emptyLabel() const { return m_empty; }

signals:
    void headActivated(int layer, int head);

private:
    void showLayerMetrics();
    void updateMarks();

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
    QStringList m_tokens;
    int m_layer = 0;
    bool m_metrics_pending = false;
};

}  // namespace attn
