#pragma once

#include "ui/heatmap/ColorScale.h"
#include "ui/heatmap/HeadAggregate.h"
#include "ui/heatmap/HeatmapReduction.h"

#include <QList>
#include <QMenu>

class QActionGroup;

namespace attn {

// View › Heatmaps: what every heatmap view draws, in one place. The colour scale (shared by the
// grid, one head and Compare's A and B, remembered in the settings), an extra head of the mean
// or maximum over the heads (grid), exBERT's top X % per row, what a reduced pixel shows (the
// largest or the mean of the cells under it, remembered in the settings), and the keys hidden
// (each row renormalised over the others; a context menu on the token chips hides or shows one).
class HeatmapMenu : public QMenu {
    Q_OBJECT
public:
    explicit HeatmapMenu(QWidget* parent = nullptr);

    ColorScale colorScale() const { return m_scale; }
    void setColorScale(ColorScale scale);  // checks its action; emits colorScaleChanged when it changes
    double topMass() const { return m_top_mass; }
    void setTopMass(double fraction);
    HeadAggregate aggregate() const { return m_aggregate; }
    void setAggregate(HeadAggregate aggregate);
    CellReduction reduction() const { return m_reduction; }
    void setReduction(CellReduction how);  // checks its action; emits reductionChanged when it changes
    QList<int> hiddenKeys() const { return m_hidden; }
    void setHiddenKeys(const QList<int>& keys);  // sorted, without repeats
    QAction* scaleAction(ColorScale scale) const;

    static constexpr double kTopMassChoices[] = {1.0, 0.9, 0.75, 0.5};

signals:
    void colorScaleChanged(attn::ColorScale scale);
    void topMassChanged(double fraction);
    void aggregateChanged(attn::HeadAggregate aggregate);
    void reductionChanged(attn::CellReduction how);
    void hiddenKeysChanged(const QList<int>& keys);

private:
    ColorScale m_scale = ColorScale::WithoutOneKeyRows;
    double m_top_mass = 1.0;
    HeadAggregate m_aggregate = HeadAggregate::None;
    CellReduction m_reduction = CellReduction::Max;
    QList<int> m_hidden;
    QActionGroup* m_scales = nullptr;
    QActionGroup* m_masses = nullptr;
    QActionGroup* m_aggregates = nullptr;
    QActionGroup* m_reductions = nullptr;
    QAction* m_show_all = nullptr;
};

}  // namespace attn
